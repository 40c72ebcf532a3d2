import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import {
  DocumentBoundError,
  type DocumentBounds,
  DocumentUnreadableError,
  documentBounds,
} from "../../src/tools/attachments/document-bounds.ts";
import { docxText } from "../../src/tools/attachments/docx-text.ts";
import { pdfText } from "../../src/tools/attachments/pdf-text.ts";
import { ZipArchive } from "../../src/tools/attachments/zip-archive.ts";
import { readZipDirectory } from "../../src/tools/attachments/zip-directory.ts";
import { manyPagesPdf, nestedDocx, zipBombDocx } from "../support/document-bombs.ts";
import { makeDocx, makePdf } from "../support/files.ts";

const MB = 1_000_000;
const bounds = (over: Partial<DocumentBounds> = {}): DocumentBounds => ({
  ...documentBounds(DEFAULT_ATTACHMENTS, Date.now()),
  ...over,
});

describe("a zip's central directory", () => {
  it("lists a Word document's parts with their declared sizes, inflating nothing", () => {
    const listing = readZipDirectory(makeDocx(["hello"]), { maxEntries: 10, maxBytes: MB });
    expect(listing.ok).toBe(true);
    if (!listing.ok) return;
    expect(listing.entries.map((e) => e.name)).toEqual([
      "[Content_Types].xml",
      "_rels/.rels",
      "word/document.xml",
    ]);
    expect(listing.declaredBytes).toBe(listing.entries.reduce((sum, e) => sum + e.size, 0));
  });

  it("refuses a zip bomb from its directory: 20 MB declared past a 1 MB bound", () => {
    const listing = readZipDirectory(zipBombDocx(20 * MB), { maxEntries: 10, maxBytes: MB });
    expect(listing).toEqual({
      ok: false,
      problem: "it expands past 1.0 MB unzipped (attachments.max_unzipped_bytes)",
      bound: true,
    });
  });

  it("refuses a zip with more entries than the bound", () => {
    const listing = readZipDirectory(makeDocx(["x"]), { maxEntries: 2, maxBytes: MB });
    expect(listing).toEqual({
      ok: false,
      problem: "it holds more than 2 files inside (attachments.max_zip_entries)",
      bound: true,
    });
  });

  it("never throws and never lists past its bounds, whatever the bytes (random, or a real zip with bytes changed)", () => {
    const real = zipBombDocx(200_000);
    const mutated = fc
      .array(fc.tuple(fc.nat(real.length - 1), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((edits) => {
        const copy = Uint8Array.from(real);
        for (const [at, value] of edits) copy[at] = value;
        return copy;
      });
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 300 }), mutated),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 400_000 }),
        (bytes, maxEntries, maxBytes) => {
          const listing = readZipDirectory(bytes, { maxEntries, maxBytes });
          if (!listing.ok) return;
          expect(listing.entries.length).toBeLessThanOrEqual(maxEntries);
          expect(listing.declaredBytes).toBeLessThanOrEqual(maxBytes);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("a zip read under a budget of unzipped bytes", () => {
  it("stops inflating at the budget when the directory lies (20 MB declared as 1 KB)", () => {
    const zip = new ZipArchive(zipBombDocx(20 * MB, true), { maxEntries: 10, maxBytes: MB });
    expect(zip.has("word/document.xml")).toBe(true);
    expect(() => zip.read("word/document.xml")).toThrow(
      new DocumentBoundError("it expands past 1.0 MB unzipped (attachments.max_unzipped_bytes)"),
    );
  });

  it("never hands out more than its budget, and fails only with its own errors, whatever the bytes", () => {
    const real = zipBombDocx(300_000, true);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(real.length - 1), fc.integer({ min: 0, max: 255 })), {
          maxLength: 6,
        }),
        fc.integer({ min: 1_000, max: 500_000 }),
        (edits, maxBytes) => {
          const bytes = Uint8Array.from(real);
          for (const [at, value] of edits) bytes[at] = value;
          let total = 0;
          try {
            const zip = new ZipArchive(bytes, { maxEntries: 10, maxBytes });
            for (const name of ["[Content_Types].xml", "_rels/.rels", "word/document.xml"]) {
              if (zip.has(name)) total += zip.read(name).byteLength;
            }
          } catch (error) {
            expect([DocumentBoundError, DocumentUnreadableError]).toContain(
              (error as Error).constructor,
            );
          }
          expect(total).toBeLessThanOrEqual(maxBytes);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("reads a real Word document through mammoth, and a lying bomb stops at the bound", async () => {
    expect(await docxText(makeDocx(["one", "two"]), bounds())).toBe("one\n\ntwo");
    await expect(
      docxText(zipBombDocx(5 * MB, true), bounds({ maxUnzippedBytes: MB })),
    ).rejects.toThrow("it expands past 1.0 MB unzipped (attachments.max_unzipped_bytes)");
  });

  it("a document nested deeper than any stack fails with a RangeError, which the thread reports", async () => {
    await expect(docxText(nestedDocx(100_000), bounds())).rejects.toThrow(RangeError);
  });
});

describe("a PDF read under its page and character bounds", () => {
  it("reads the first max_pdf_pages pages and says how many of how many", async () => {
    const doc = await pdfText(manyPagesPdf(1_000, "same line"), bounds({ maxPdfPages: 5 }));
    expect(doc.pages).toBe(1_000);
    expect(doc.text.match(/--- page \d+ ---/g)).toHaveLength(5);
    expect(doc.cut).toBe("the first 5 of 1,000 pages were read (attachments.max_pdf_pages)");
  });

  it("stops once past max_document_chars", async () => {
    const pages = Array.from({ length: 20 }, (_, i) => `page ${i} ${"x".repeat(50)}`);
    const doc = await pdfText(makePdf(pages), bounds({ maxChars: 100 }));
    expect(doc.text.match(/--- page \d+ ---/g)).toHaveLength(2);
    expect(doc.cut).toBe("the first 2 of 20 pages were read (attachments.max_document_chars)");
  });

  it("stops at the soft deadline, with the first page read", async () => {
    const doc = await pdfText(manyPagesPdf(50), bounds({ softDeadline: Date.now() - 1 }));
    expect(doc.text).toBe("--- page 1 ---\nthe same page again");
    expect(doc.cut).toBe("the first 1 of 50 pages were read (attachments.parse_ms)");
  });

  it("a PDF within its bounds is read whole, with no cut", async () => {
    const doc = await pdfText(makePdf(["a", "b"]), bounds());
    expect(doc).toEqual({ text: "--- page 1 ---\na\n\n--- page 2 ---\nb", pages: 2 });
  });
});
