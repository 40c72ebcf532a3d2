import { shownSize } from "../../core/attachments/content.ts";
import type { AttachmentsConfig } from "../../core/config/attachments-section.ts";

/** A document's text, cut at `maxChars` at most; the reader cuts it again to the inline cap. */
export interface DocumentText {
  readonly text: string;
  /** Pages, for a PDF. */
  readonly pages?: number;
  /** What was left out and by which bound, e.g. "the first 500 of 100,000 pages were read (attachments.max_pdf_pages)". */
  readonly cut?: string;
}

/**
 * How far reading one document may go, as the parser thread gets it: plain
 * numbers (they cross a thread boundary), taken from the `attachments:`
 * section. `softDeadline` (epoch ms) is when a parser that reads in steps
 * (a PDF, page by page) stops and returns what it has; the pool stops the
 * thread outright at the budget itself.
 */
export interface DocumentBounds {
  readonly maxUnzippedBytes: number;
  readonly maxZipEntries: number;
  readonly maxPdfPages: number;
  readonly maxChars: number;
  readonly softDeadline: number;
}

/** The bounds for a document read from now, within `limits.parseMs`. */
export function documentBounds(limits: AttachmentsConfig, now: number): DocumentBounds {
  return {
    maxUnzippedBytes: limits.maxUnzippedBytes,
    maxZipEntries: limits.maxZipEntries,
    maxPdfPages: limits.maxPdfPages,
    maxChars: limits.maxDocumentChars,
    // A fifth of the budget (at most 5 s) is left for the pages read to come back.
    softDeadline: now + limits.parseMs - Math.min(5_000, limits.parseMs / 5),
  };
}

/**
 * A document refused because reading it would go past a bound: what it
 * produces, not what arrived. The message is the note's reason, naming the
 * bound and its key, e.g. "it expands past 50.0 MB unzipped
 * (attachments.max_unzipped_bytes)".
 */
export class DocumentBoundError extends Error {
  override readonly name = "DocumentBoundError";
}

/** A document whose bytes are not what its type says (a broken zip, a truncated entry). */
export class DocumentUnreadableError extends Error {
  override readonly name = "DocumentUnreadableError";
}

export const unzippedTooBig = (max: number) =>
  new DocumentBoundError(
    `it expands past ${shownSize(max)} unzipped (attachments.max_unzipped_bytes)`,
  );

export const tooManyEntries = (max: number) =>
  new DocumentBoundError(
    `it holds more than ${max.toLocaleString("en-US")} files inside (attachments.max_zip_entries)`,
  );
