import {
  type AttachmentContent,
  type AttachmentKind,
  namedOnly,
  shownSize,
} from "../../core/attachments/content.ts";
import { kindOf, VISION_TYPES } from "../../core/attachments/kind.ts";
import { imageNote } from "../../core/attachments/unseen-images.ts";
import type { CapabilityStatus } from "../../core/availability/capabilities.ts";
import type { AttachmentsConfig } from "../../core/config/attachments-section.ts";
import type { Attachment } from "../../core/conversation.ts";
import type { DocumentParsers } from "./document-parsers.ts";
import { documentId } from "./document-store.ts";
import { visionImage } from "./image.ts";
import type { Transcriber } from "./transcribe.ts";

/** What the host can do with a file once it has the bytes. */
export interface ReadingPowers {
  readonly vision: CapabilityStatus;
  readonly transcription: CapabilityStatus;
  readonly transcriber?: Transcriber | undefined;
  readonly limits: AttachmentsConfig;
  readonly signal: AbortSignal;
  /** The parser threads documents are read on, off the main thread. */
  readonly parsers: DocumentParsers;
  /** Keeps a long document for `read_attachment` (present with the capability). */
  readonly keep?: ((id: string, text: string) => Promise<void>) | undefined;
}

/**
 * The fetched bytes as what the model reads: an image part (with vision),
 * a transcript (with transcription), a document's text (cut at the inline
 * cap, with a note), or the file named with its type and size. A file the
 * libraries cannot read (a corrupt image, a broken PDF) is named with why;
 * nothing here throws.
 */
export async function readBytes(
  attachment: Attachment,
  bytes: Uint8Array,
  type: string,
  powers: ReadingPowers,
): Promise<AttachmentContent> {
  const kind = kindOf(type, attachment.name, attachment.voice);
  const base = { ref: attachment.ref, name: attachment.name, kind, type, bytes: bytes.byteLength };
  try {
    switch (kind) {
      case "image":
        return await readImage(base, bytes, powers);
      case "audio":
        return await readAudio(base, attachment, bytes, powers);
      case "document":
        return await readDocument(base, bytes, powers);
      default:
        return { ...base, outcome: "named", note: "a file of a kind this bot does not read" };
    }
  } catch (error) {
    return {
      ...base,
      outcome: "failed",
      note: `it could not be read: ${(error as Error).message?.slice(0, 200) || "unreadable"}`,
    };
  }
}

type Base = Pick<AttachmentContent, "ref" | "name" | "kind" | "type" | "bytes">;

async function readImage(
  base: Base,
  bytes: Uint8Array,
  powers: ReadingPowers,
): Promise<AttachmentContent> {
  if (!powers.vision.available) {
    return {
      ...base,
      outcome: "named",
      note: imageNote(powers.vision.reason),
    };
  }
  if (!VISION_TYPES.has(base.type ?? "")) {
    return {
      ...base,
      outcome: "named",
      note: "an image type the model does not take (it takes png, jpeg, webp and gif)",
    };
  }
  const image = await visionImage(bytes, powers.limits.imageMaxSide);
  return {
    ...base,
    outcome: "image",
    image: { url: image.url, width: image.width, height: image.height },
  };
}

async function readAudio(
  base: Base,
  attachment: Attachment,
  bytes: Uint8Array,
  powers: ReadingPowers,
): Promise<AttachmentContent> {
  if (!powers.transcription.available || !powers.transcriber) {
    const reason = powers.transcription.available ? "no transcriber" : powers.transcription.reason;
    return {
      ...base,
      outcome: "named",
      note: `${attachment.voice ? "a voice note" : "audio"} was attached, but voice is not supported here (${reason}); tell the person to write instead`,
    };
  }
  const text = await powers.transcriber(
    bytes,
    attachment.name,
    base.type ?? "audio/ogg",
    powers.signal,
  );
  return { ...base, outcome: "transcript", text };
}

async function readDocument(
  base: Base,
  bytes: Uint8Array,
  powers: ReadingPowers,
): Promise<AttachmentContent> {
  const maxChars = powers.limits.maxInlineChars;
  const type = base.type ?? "text/plain";
  const doc = await powers.parsers.parse({ bytes, type }, powers.limits, powers.signal);
  if (!doc.ok) {
    // A bound refuses the same file every time (kept in the cache); a lost thread may not.
    const outcome = doc.bound ? "refused" : "failed";
    return { ...base, outcome, note: `it could not be read: ${doc.problem}` };
  }
  if (doc.text === "") {
    const scan = base.type === "application/pdf" ? " (a scan without a text layer?)" : "";
    return { ...base, outcome: "named", note: `no text could be read from it${scan}` };
  }
  const cut = doc.cut ? `${doc.cut}; ` : "";
  if (doc.text.length <= maxChars) {
    return { ...base, outcome: "text", text: doc.text, ...(doc.cut ? { note: doc.cut } : {}) };
  }
  const length = doc.text.length.toLocaleString("en-US");
  if (powers.keep) {
    const id = documentId(base.ref);
    await powers.keep(id, doc.text);
    const pages = Math.ceil(doc.text.length / maxChars);
    const days = Math.max(1, Math.round(powers.limits.keepSeconds / 86_400));
    return {
      ...base,
      outcome: "text",
      text: doc.text.slice(0, maxChars),
      note: `${cut}page 1 of ${pages} of document ${id} (${length} characters); read_attachment reads pages 2 to ${pages}, for ${days} day${days === 1 ? "" : "s"}`,
    };
  }
  return {
    ...base,
    outcome: "text",
    text: doc.text.slice(0, maxChars),
    note: `${cut}cut: the first ${maxChars.toLocaleString("en-US")} of ${length} characters are shown (attachments.max_inline_chars)`,
  };
}

/**
 * A file over its cap: refused before a byte is fetched, by the size the
 * platform declared, or `measured`: cut off at the cap as it arrived, when
 * the declared size (if any) was wrong, and the note says both.
 */
export function tooBig(
  attachment: Attachment,
  kind: AttachmentKind,
  cap: number,
  key: string,
  measured = false,
): AttachmentContent {
  const declared = attachment.size !== undefined ? shownSize(attachment.size) : undefined;
  const said = measured && declared ? `, though it was said to be ${declared}` : "";
  const size = declared && !measured ? `it is ${declared}, ` : "it is ";
  return namedOnly(
    attachment,
    kind,
    "refused",
    `not read: ${size}over the ${shownSize(cap)} limit (${key})${said}; ask for a smaller file`,
  );
}
