import mammoth from "mammoth";
import { extractText, getDocumentProxy } from "unpdf";
import { DOCX_TYPE } from "../../core/attachments/kind.ts";
import { parseMediaType, readablePage } from "../web/readable.ts";

/** A document's text, whole; the reader cuts it to the inline cap. */
export interface DocumentText {
  readonly text: string;
  /** Pages, for a PDF. */
  readonly pages?: number;
}

/**
 * The text of a text-like file (decoded as its charset says, else UTF-8),
 * an HTML page through the same readable-text path `fetch_url` uses, or a
 * PDF's text layer through `unpdf` (pdf.js), page by page, or a Word
 * document's (DOCX) paragraphs through `mammoth`. Undefined when the type
 * is not one of those. A PDF with no text layer (a scan) comes back
 * empty; the reader says so.
 */
export async function documentText(
  bytes: Uint8Array,
  type: string,
): Promise<DocumentText | undefined> {
  if (type === "application/pdf") {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    try {
      const { totalPages, text } = await extractText(pdf, { mergePages: false });
      const pages = text.map((page, i) => `--- page ${i + 1} ---\n${page.trim()}`);
      const empty = text.every((page) => page.trim() === "");
      return { text: empty ? "" : pages.join("\n\n"), pages: totalPages };
    } finally {
      await pdf.destroy().catch(() => {});
    }
  }
  if (type === DOCX_TYPE) {
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
    return { text: value.trim() };
  }
  const media = parseMediaType(type);
  if (type === "text/html" || type === "application/xhtml+xml") {
    return { text: readablePage(bytes, media, "html")?.text ?? "" };
  }
  if (type === "application/json") return { text: readablePage(bytes, media, "json")?.text ?? "" };
  return { text: readablePage(bytes, media, "text")?.text ?? "" };
}
