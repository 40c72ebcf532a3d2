import { DOCX_TYPE, isTextLike, textTypeFor } from "../../core/attachments/kind.ts";
import { readZipDirectory } from "./zip-directory.ts";

/**
 * The file's type from its bytes (magic numbers, via `file-type`), never
 * from what the platform declared: a `.png` that is a PDF is a PDF. Bytes
 * with no signature are text when they decode as UTF-8 without NULs (then
 * the declared text type, or one from the name, is kept, since text has no
 * signature), else `application/octet-stream`. A zip is typed from the
 * names in its directory: file-type would inflate a part of it here, on
 * the main thread, with no bound on what comes out.
 */
export async function sniffType(
  bytes: Uint8Array,
  declared: string | undefined,
  name: string,
): Promise<string> {
  if (isZip(bytes)) return zipType(bytes);
  // Imported at the first file, not with the bot; a failure to load it is an error, not "no signature".
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(bytes).catch(() => undefined);
  // file-type reads some text formats as XML-ish; trust a declared text type over those.
  if (found && !(found.mime === "application/xml" && isTextLike(declared, name))) {
    return found.mime.split(";")[0]?.trim() ?? found.mime;
  }
  if (!looksLikeText(bytes)) return "application/octet-stream";
  if (declared && isTextLike(declared, name) && declared !== "application/octet-stream") {
    return declared;
  }
  return textTypeFor(name);
}

function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return false;
  try {
    // A cut at the end of the sample may split a character; decode leniently there.
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, lastWholeChar(head)));
    return true;
  } catch {
    return false;
  }
}

/** The sample's length without a trailing, incomplete UTF-8 sequence. */
function lastWholeChar(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = bytes[end - back] as number;
    if ((byte & 0xc0) === 0xc0) return end - back;
    if ((byte & 0x80) === 0) break;
  }
  return end;
}

const ZIP_TYPES: readonly (readonly [string, string])[] = [
  ["word/document.xml", DOCX_TYPE],
  ["xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
  [
    "ppt/presentation.xml",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ],
];

function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/** An Office document by the part that makes it one, else a zip; the names only, nothing inflated. */
function zipType(bytes: Uint8Array): string {
  const listing = readZipDirectory(bytes, {
    maxEntries: 100_000,
    maxBytes: Number.POSITIVE_INFINITY,
  });
  if (!listing.ok) return "application/zip";
  const names = new Set(listing.entries.map((entry) => entry.name));
  return ZIP_TYPES.find(([part]) => names.has(part))?.[1] ?? "application/zip";
}
