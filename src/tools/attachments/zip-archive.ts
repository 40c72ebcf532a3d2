import { inflateRawSync } from "node:zlib";
import { DocumentBoundError, DocumentUnreadableError, unzippedTooBig } from "./document-bounds.ts";
import { readZipDirectory, type ZipEntry } from "./zip-directory.ts";

const LOCAL = 0x04034b50;

/**
 * A zip opened under a budget of unzipped bytes: its directory is checked
 * first (entries and declared sizes, see {@link readZipDirectory}), then
 * every entry read is inflated with the budget left as zlib's output cap,
 * so a directory that lies about its sizes stops at the budget too instead
 * of filling the heap. Throws {@link DocumentBoundError} past a bound and
 * {@link DocumentUnreadableError} for a broken archive.
 */
export class ZipArchive {
  readonly #bytes: Uint8Array;
  readonly #entries: ReadonlyMap<string, ZipEntry>;
  readonly #maxBytes: number;
  #used = 0;

  constructor(bytes: Uint8Array, bounds: { maxEntries: number; maxBytes: number }) {
    const listing = readZipDirectory(bytes, bounds);
    if (!listing.ok) {
      throw listing.bound
        ? new DocumentBoundError(listing.problem)
        : new DocumentUnreadableError(listing.problem);
    }
    this.#bytes = bytes;
    this.#maxBytes = bounds.maxBytes;
    this.#entries = new Map(listing.entries.map((entry) => [entry.name, entry]));
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The entry's bytes, unzipped; counted against the archive's budget. */
  read(name: string): Uint8Array {
    const entry = this.#entries.get(name);
    if (entry === undefined) throw new DocumentUnreadableError(`it has no ${name} inside`);
    if (entry.encrypted) throw new DocumentUnreadableError("it is encrypted");
    const data = this.#data(entry);
    const left = this.#maxBytes - this.#used;
    let out: Uint8Array;
    if (entry.method === 0) {
      if (data.byteLength > left) throw unzippedTooBig(this.#maxBytes);
      out = data;
    } else if (entry.method === 8) {
      out = inflateBounded(data, left, this.#maxBytes);
    } else {
      throw new DocumentUnreadableError(`${name} is compressed in a way this bot does not read`);
    }
    this.#used += out.byteLength;
    return out;
  }

  /** The entry's compressed bytes, found through its local header. */
  #data(entry: ZipEntry): Uint8Array {
    const bytes = this.#bytes;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = entry.localOffset;
    if (at + 30 > bytes.byteLength || view.getUint32(at, true) !== LOCAL) {
      throw new DocumentUnreadableError(`its entry ${entry.name} is not where its directory says`);
    }
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const end = start + entry.compressedSize;
    if (end > bytes.byteLength)
      throw new DocumentUnreadableError(`its entry ${entry.name} is cut short`);
    return bytes.subarray(start, end);
  }
}

function inflateBounded(data: Uint8Array, left: number, max: number): Uint8Array {
  if (left <= 0) throw unzippedTooBig(max);
  try {
    return inflateRawSync(data, { maxOutputLength: left });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") throw unzippedTooBig(max);
    throw new DocumentUnreadableError(`an entry does not inflate (${(error as Error).message})`);
  }
}
