import { DOCX_TYPE } from "../../core/attachments/kind.ts";
import { parseMediaType, readablePage } from "../web/readable.ts";
import type { DocumentBounds, DocumentText } from "./document-bounds.ts";
import { docxText } from "./docx-text.ts";
import { pdfText } from "./pdf-text.ts";

/**
 * The text of a text-like file (decoded as its charset says, else UTF-8),
 * an HTML page through the same readable-text path `fetch_url` uses, a
 * PDF's text layer (see `pdfText`), or a Word document's (DOCX)
 * paragraphs (see `docxText`), within `bounds`. Undefined when the type is
 * not one of those. A PDF with no text layer (a scan) comes back empty; the
 * reader says so. Runs on a parser thread (see `DocumentParsers`): a
 * parser that goes past its memory or stack kills only that thread.
 */
export async function documentText(
  bytes: Uint8Array,
  type: string,
  bounds: DocumentBounds,
): Promise<DocumentText | undefined> {
  if (type === "application/pdf") return pdfText(bytes, bounds);
  if (type === DOCX_TYPE) return capped(await docxText(bytes, bounds), bounds);
  const media = parseMediaType(type);
  if (type === "text/html" || type === "application/xhtml+xml") {
    return capped(readablePage(bytes, media, "html")?.text ?? "", bounds);
  }
  if (type === "application/json") {
    return capped(readablePage(bytes, media, "json")?.text ?? "", bounds);
  }
  return capped(readablePage(bytes, media, "text")?.text ?? "", bounds);
}

function capped(text: string, bounds: DocumentBounds): DocumentText {
  if (text.length <= bounds.maxChars) return { text };
  return {
    text: text.slice(0, bounds.maxChars),
    cut: `the first ${bounds.maxChars.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters were read (attachments.max_document_chars)`,
  };
}
