/**
 * Files the bot sends to the fake Bot API (telegram-api.ts): `sendPhoto`
 * and `sendDocument` with the file in a multipart/form-data body, as grammY
 * sends an `InputFile` (a field `photo=attach://<id>` and a file part named
 * `<id>`; a file part named after the field itself works too), or a file_id
 * Telegram already has. The bytes are kept: `getFile` finds them and the
 * file root serves them. Answers are the Bot API's Message, with `photo`
 * (PhotoSize array) or `document`; refusals are the Bot API's 400 and 413.
 */
import type { Document, Message, PhotoSize } from "grammy/types";
import sharp from "sharp";
import { parseMultipart } from "./multipart.ts";
import type { ChatBook, Params } from "./telegram-chats.ts";
import { BotApiError } from "./telegram-updates.ts";

/** A file part that arrived with a call, where its field's `attach://` pointed. */
export interface UploadedPart {
  readonly filename: string;
  readonly bytes: Buffer;
}

/** A file Telegram holds: what `getFile` describes and the file root serves. */
export interface HeldFile {
  readonly bytes: Uint8Array;
  readonly path: string;
}

const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const DOCUMENT_MAX_BYTES = 50 * 1024 * 1024;

const MIME_TYPES: Readonly<Record<string, string>> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  zip: "application/zip",
};

/** The fields the Bot API reads as JSON in a multipart body; every other one is text. */
const JSON_FIELDS = new Set([
  "reply_parameters",
  "reply_markup",
  "caption_entities",
  "link_preview_options",
  "suggested_post_parameters",
]);

/**
 * A multipart call's parameters as the Bot API reads them: JSON-typed
 * fields (reply_parameters) parsed, `attach://<id>` replaced by the part.
 */
export async function multipartParams(contentType: string, raw: Buffer): Promise<Params> {
  const form = await parseMultipart(contentType, raw);
  const params: Params = {};
  const attached = new Set<string>();
  for (const [name, value] of Object.entries(form.fields)) {
    const attach = /^attach:\/\/(.+)$/.exec(value)?.[1];
    if (attach !== undefined) {
      attached.add(attach);
      const part = form.files.find((f) => f.field === attach);
      if (part)
        params[name] = { filename: part.filename, bytes: part.bytes } satisfies UploadedPart;
      continue;
    }
    params[name] = JSON_FIELDS.has(name) ? jsonOr(value) : value;
  }
  for (const part of form.files) {
    if (attached.has(part.field)) continue;
    params[part.field] = { filename: part.filename, bytes: part.bytes } satisfies UploadedPart;
  }
  return params;
}

/** sendPhoto and sendDocument over the chats, keeping what is sent in `files` by file_id. */
export function uploadMethods(
  book: ChatBook,
  files: Map<string, HeldFile>,
): Record<string, (p: Params) => Promise<Message>> {
  const keep = (bytes: Uint8Array, path: (id: string) => string) => {
    const id = `file-${files.size + 1}`;
    files.set(id, { bytes, path: path(id) });
    return { file_id: id, file_unique_id: `u-${id}`, file_size: bytes.byteLength };
  };
  return {
    sendPhoto: async (p) => {
      const part = uploaded(p.photo, files, "photo");
      if (part.bytes.byteLength > PHOTO_MAX_BYTES) {
        throw new BotApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS");
      }
      const { width, height } = await sharp(part.bytes)
        .metadata()
        .catch(() => {
          throw new BotApiError(400, "Bad Request: IMAGE_PROCESS_FAILED");
        });
      if (
        !width ||
        !height ||
        width + height > 10_000 ||
        Math.max(width / height, height / width) > 20
      ) {
        throw new BotApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS");
      }
      return book.botSends(p, () => {
        const size: PhotoSize = { ...keep(part.bytes, (id) => `photos/${id}.jpg`), width, height };
        return { photo: [size] };
      });
    },
    sendDocument: async (p) => {
      const part = uploaded(p.document, files, "document");
      if (part.bytes.byteLength > DOCUMENT_MAX_BYTES) {
        throw new BotApiError(413, "Request Entity Too Large");
      }
      return book.botSends(p, () => {
        const name = part.filename || "document";
        const extension = name.includes(".") ? (name.split(".").pop() ?? "") : "";
        const document: Document = {
          ...keep(part.bytes, (id) => `documents/${id}-${name}`),
          file_name: name,
          mime_type: MIME_TYPES[extension.toLowerCase()] ?? "application/octet-stream",
        };
        return { document };
      });
    },
  };
}

/** The file a call sends: a part that arrived with it, or one Telegram holds by file_id. */
function uploaded(value: unknown, files: Map<string, HeldFile>, field: string): UploadedPart {
  if (typeof value === "string") {
    const held = files.get(value);
    if (!held) throw new BotApiError(400, "Bad Request: wrong file identifier/HTTP URL specified");
    return { filename: held.path.split("/").pop() ?? "", bytes: Buffer.from(held.bytes) };
  }
  const part = value as UploadedPart | undefined;
  if (!part?.bytes) throw new BotApiError(400, `Bad Request: there is no ${field} in the request`);
  if (part.bytes.byteLength === 0)
    throw new BotApiError(400, "Bad Request: file must be non-empty");
  return part;
}

function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
