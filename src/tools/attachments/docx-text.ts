import mammoth from "mammoth";
import type { DocumentBounds } from "./document-bounds.ts";
import { ZipArchive } from "./zip-archive.ts";

/**
 * A Word document's (DOCX) paragraphs through `mammoth`, which reads the
 * package through a {@link ZipArchive} instead of its own unzipper: every
 * part it opens is inflated under `maxUnzippedBytes`, counted across parts.
 */
export async function docxText(bytes: Uint8Array, bounds: DocumentBounds): Promise<string> {
  const zip = new ZipArchive(bytes, {
    maxEntries: bounds.maxZipEntries,
    maxBytes: bounds.maxUnzippedBytes,
  });
  // mammoth's `file` input (an opened zip: exists, read) is what its own
  // openZip returns; its typings list only path and buffer.
  const file = {
    exists: (name: string) => zip.has(name),
    read: async (name: string, encoding?: string) => {
      const data = zip.read(name);
      if (encoding === "base64") return Buffer.from(data).toString("base64");
      return encoding ? new TextDecoder(encoding).decode(data) : data;
    },
  };
  const { value } = await mammoth.extractRawText({ file } as unknown as { buffer: Buffer });
  return value.trim();
}
