import { getDocumentProxy } from "unpdf";
import type { DocumentBounds, DocumentText } from "./document-bounds.ts";

/**
 * A PDF's text layer through `unpdf` (pdf.js), page by page, from the
 * first: at most `maxPdfPages` pages, stopping once `maxChars` characters
 * are read or the soft deadline passes (the first page is always read). What was left out is said in `cut`
 * ("the first 500 of 100,000 pages were read (attachments.max_pdf_pages)").
 */
export async function pdfText(bytes: Uint8Array, bounds: DocumentBounds): Promise<DocumentText> {
  // verbosity 0: errors only; pdf.js warns about every quirk of a broken file on the console.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    const total = pdf.numPages;
    const pages: string[] = [];
    let chars = 0;
    let stop: string | undefined;
    for (let n = 1; n <= total; n++) {
      if (n > bounds.maxPdfPages) stop = "attachments.max_pdf_pages";
      else if (chars > bounds.maxChars) stop = "attachments.max_document_chars";
      else if (n > 1 && Date.now() > bounds.softDeadline) stop = "attachments.parse_ms";
      if (stop) break;
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      page.cleanup();
      const text = content.items
        .map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : ""))
        .join("")
        .trim();
      pages.push(text);
      chars += text.length;
    }
    const empty = pages.every((page) => page === "");
    const text = empty ? "" : pages.map((page, i) => `--- page ${i + 1} ---\n${page}`).join("\n\n");
    const read = pages.length;
    const cut = stop
      ? `the first ${read.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} pages were read (${stop})`
      : undefined;
    return { text, pages: total, ...(cut ? { cut } : {}) };
  } finally {
    await pdf.destroy().catch(() => {});
  }
}
