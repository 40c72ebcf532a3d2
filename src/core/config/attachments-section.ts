import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * What the worker does with files people send: how much it downloads, how
 * long it waits, how big an image it hands the model, how much text it
 * inlines. A file over its cap is not downloaded; the model and the person
 * are told its name, its size and the cap instead. A document is read off
 * the worker's main thread and bounded by what reading it produces, not only
 * by its bytes: a zip (DOCX) by its size unzipped and its number of files,
 * a PDF by its pages, any document by the characters it yields and by time.
 * Past a bound the document is refused or cut, and the note says which key.
 *
 * ```yaml
 * attachments:
 *   max_image_bytes: 20000000      # a photo straight off a phone is 3-12 MB
 *   max_document_bytes: 20000000   # Telegram's cloud Bot API serves at most 20 MB anyway
 *   max_audio_bytes: 25000000      # what OpenAI's /audio/transcriptions accepts
 *   max_other_bytes: 20000000      # video and anything else: only named, but sniffed first
 *   max_turn_bytes: 50000000       # all the files of one turn together
 *   fetch_ms: 30000                # one download, from the request to the last byte
 *   image_max_side: 1568           # longest side of an image the model sees, in pixels
 *   max_inline_chars: 20000        # a document's text inlined, at most; longer is cut with a note
 *   cache_seconds: 3600            # a fetched file is kept this long, so a resumed turn does not fetch it again
 *   keep_seconds: 604800           # a document longer than max_inline_chars is kept this long for read_attachment; 0: cut, not kept
 *   max_unzipped_bytes: 50000000   # a zip-based document (DOCX) unzipped, all its files together; checked before and while inflating
 *   max_zip_entries: 2000          # files inside one zip-based document
 *   max_pdf_pages: 500             # a PDF's pages read, from the first; the note says how many of how many
 *   max_document_chars: 2000000    # a document's text read, at most; reading stops there and the note says so
 *   parse_ms: 20000                # reading one document, at most; a reader that takes longer is stopped
 * ```
 */
export interface AttachmentsConfig {
  readonly maxImageBytes: number;
  readonly maxDocumentBytes: number;
  readonly maxAudioBytes: number;
  readonly maxOtherBytes: number;
  readonly maxTurnBytes: number;
  readonly fetchMs: number;
  readonly imageMaxSide: number;
  readonly maxInlineChars: number;
  readonly cacheSeconds: number;
  /** How long a long document stays readable with `read_attachment`; 0 turns the tool off. */
  readonly keepSeconds: number;
  /** A zip-based document's entries unzipped, together: declared, and counted while inflating. */
  readonly maxUnzippedBytes: number;
  readonly maxZipEntries: number;
  readonly maxPdfPages: number;
  /** The characters read from one document (kept for `read_attachment` beyond the inline cap). */
  readonly maxDocumentChars: number;
  /** The wall-clock budget of reading one document, on its parser thread. */
  readonly parseMs: number;
}

/**
 * Why these numbers: 20 MB is the most the Telegram cloud Bot API hands a
 * bot and more than any screenshot or PDF a chat carries; 25 MB is the
 * transcription endpoint's own limit. 1568 px is the longest side vision
 * models read at full detail before they scale down themselves (OpenAI
 * scales to 2048 then 768 on the short side; Anthropic recommends 1568), so
 * a bigger image costs bytes and nothing else. 20,000 characters is about
 * 5,000 tokens: a page or ten of a document, not the whole context. A
 * week is how long a conversation about a document plausibly goes on.
 *
 * The parser bounds are set well above real documents and far below what
 * hurts a worker. A 300-page Word report unzips to a few MB of XML, and even
 * one near the 20 MB download cap, most of it photos (which do not
 * compress), unzips to little more than its size: 50 MB leaves room for
 * both, while a zip bomb (a few MB that unzip to gigabytes) is refused from
 * its directory before anything is inflated. A DOCX has 10 to 50 files
 * inside, a few hundred with many images: 2,000 is generous. 500 pages is a
 * long book; past it a person asks about a part, and the model can say
 * which pages it read. 2,000,000 characters is about 500 dense pages, or 100
 * pages of read_attachment. 20 s is what a person waits for a first answer
 * about a big document; a text-heavy DOCX reads at about 3 MB of XML a
 * second on one busy core, so a real document is read well within it.
 */
export const DEFAULT_ATTACHMENTS: AttachmentsConfig = Object.freeze({
  maxImageBytes: 20_000_000,
  maxDocumentBytes: 20_000_000,
  maxAudioBytes: 25_000_000,
  maxOtherBytes: 20_000_000,
  maxTurnBytes: 50_000_000,
  fetchMs: 30_000,
  imageMaxSide: 1568,
  maxInlineChars: 20_000,
  cacheSeconds: 3600,
  keepSeconds: 604_800,
  maxUnzippedBytes: 50_000_000,
  maxZipEntries: 2_000,
  maxPdfPages: 500,
  maxDocumentChars: 2_000_000,
  parseMs: 20_000,
});

const KEYS: Readonly<Record<keyof AttachmentsConfig, readonly [string, string, number, number]>> = {
  maxImageBytes: ["max_image_bytes", "bytes", 1_000, 500_000_000],
  maxDocumentBytes: ["max_document_bytes", "bytes", 1_000, 500_000_000],
  maxAudioBytes: ["max_audio_bytes", "bytes", 1_000, 500_000_000],
  maxOtherBytes: ["max_other_bytes", "bytes", 1_000, 500_000_000],
  maxTurnBytes: ["max_turn_bytes", "bytes", 1_000, 2_000_000_000],
  fetchMs: ["fetch_ms", "milliseconds", 100, 600_000],
  imageMaxSide: ["image_max_side", "pixels", 64, 8192],
  maxInlineChars: ["max_inline_chars", "characters", 100, 1_000_000],
  cacheSeconds: ["cache_seconds", "seconds", 10, 604_800],
  keepSeconds: ["keep_seconds", "seconds", 0, 7_776_000],
  // At most 200 MB: a part is decoded into one string on a parser thread of 512 MB, and one
  // allocation past a thread's heap crashes the whole process instead of ending the thread.
  maxUnzippedBytes: ["max_unzipped_bytes", "bytes", 1_000, 200_000_000],
  maxZipEntries: ["max_zip_entries", "entries", 1, 1_000_000],
  maxPdfPages: ["max_pdf_pages", "pages", 1, 1_000_000],
  maxDocumentChars: ["max_document_chars", "characters", 100, 100_000_000],
  parseMs: ["parse_ms", "milliseconds", 100, 600_000],
};

const NAMES = Object.keys(KEYS) as (keyof AttachmentsConfig)[];
const LISTED = NAMES.map((name) => `${KEYS[name][0]}:`).join(", ");

const whole = (name: keyof AttachmentsConfig) => {
  const [, unit, min, max] = KEYS[name];
  return z
    .number({
      error: (iss) => `expected a whole number of ${unit}, found ${describeValue(iss.input)}.`,
    })
    .int({ error: (iss) => `expected a whole number of ${unit}, found ${String(iss.input)}.` })
    .min(min, {
      error: `must be at least ${min} ${unit}; ${DEFAULT_ATTACHMENTS[name]} is the default.`,
    })
    .max(max, {
      error: `must be at most ${max} ${unit}; ${DEFAULT_ATTACHMENTS[name]} is the default.`,
    })
    .optional();
};

export const attachmentsSection = sectionMap(
  "attachments",
  Object.fromEntries(NAMES.map((name) => [KEYS[name][0], whole(name)])),
  // Listed with commas only: fifteen keys read better without an "and".
  { takes: LISTED, put: LISTED },
).transform(
  (section): AttachmentsConfig =>
    Object.freeze(
      Object.fromEntries(
        NAMES.map((name) => [
          name,
          ((section as Record<string, unknown>)[KEYS[name][0]] as number | undefined) ??
            DEFAULT_ATTACHMENTS[name],
        ]),
      ) as unknown as AttachmentsConfig,
    ),
);
