import { tooManyEntries, unzippedTooBig } from "./document-bounds.ts";

/** One file inside a zip, as its central directory declares it. */
export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated; anything else is not read. */
  readonly method: number;
  readonly encrypted: boolean;
  readonly compressedSize: number;
  /** The declared uncompressed size: a hint, checked again while inflating. */
  readonly size: number;
  readonly localOffset: number;
}

export type ZipListing =
  | { readonly ok: true; readonly entries: readonly ZipEntry[]; readonly declaredBytes: number }
  | { readonly ok: false; readonly problem: string; readonly bound: boolean };

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const MAX32 = 0xffffffff;

/**
 * A zip's files from its central directory, read without inflating a byte,
 * and refused when it declares more than `maxEntries` files or more than
 * `maxBytes` unzipped in all: the cheap first check against a zip bomb
 * (declared sizes can lie; the reader counts again while inflating). Zip64
 * sizes and offsets are read. Never throws: any bytes make a listing or a
 * problem, which is the note's reason.
 */
export function readZipDirectory(
  bytes: Uint8Array,
  bounds: { readonly maxEntries: number; readonly maxBytes: number },
): ZipListing {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const directory = locateDirectory(view);
  if (directory === undefined) return broken("it is not a readable zip (no central directory)");
  const entries: ZipEntry[] = [];
  let declaredBytes = 0;
  let at = directory.offset;
  const end = Math.min(view.byteLength, directory.offset + directory.size);
  while (at + 46 <= end && view.getUint32(at, true) === CENTRAL) {
    if (entries.length >= bounds.maxEntries) {
      return { ok: false, problem: tooManyEntries(bounds.maxEntries).message, bound: true };
    }
    const entry = centralEntry(view, at);
    if (entry === undefined) return broken("its central directory is cut short");
    declaredBytes += entry.value.size;
    if (declaredBytes > bounds.maxBytes) {
      return { ok: false, problem: unzippedTooBig(bounds.maxBytes).message, bound: true };
    }
    entries.push(entry.value);
    at = entry.next;
  }
  if (entries.length === 0) return broken("it is not a readable zip (its directory is empty)");
  return { ok: true, entries, declaredBytes };
}

function broken(problem: string): ZipListing {
  return { ok: false, problem, bound: false };
}

/** Where the central directory is, from the end record (searched backwards past a comment) and its zip64 twin. */
function locateDirectory(view: DataView): { offset: number; size: number } | undefined {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) !== EOCD) continue;
    let size = view.getUint32(at + 12, true);
    let offset = view.getUint32(at + 16, true);
    if ((size === MAX32 || offset === MAX32) && at >= 20) {
      const locator = at - 20;
      if (view.getUint32(locator, true) === ZIP64_LOCATOR) {
        const record = u64(view, locator + 8);
        if (record + 56 <= view.byteLength && view.getUint32(record, true) === ZIP64_EOCD) {
          size = u64(view, record + 40);
          offset = u64(view, record + 48);
        }
      }
    }
    if (offset + 46 <= view.byteLength) return { offset, size };
  }
  return undefined;
}

/** One central directory record at `at`, or undefined when it runs past the end. */
function centralEntry(view: DataView, at: number): { value: ZipEntry; next: number } | undefined {
  const nameLength = view.getUint16(at + 28, true);
  const extraLength = view.getUint16(at + 30, true);
  const commentLength = view.getUint16(at + 32, true);
  const next = at + 46 + nameLength + extraLength + commentLength;
  if (next > view.byteLength) return undefined;
  let compressedSize = view.getUint32(at + 20, true);
  let size = view.getUint32(at + 24, true);
  let localOffset = view.getUint32(at + 42, true);
  // Zip64: the fields at their 32-bit maximum are in the extra field (id 1), in this order.
  const extra = findExtra(view, at + 46 + nameLength, extraLength, 0x0001);
  if (extra !== undefined) {
    let field = extra.start;
    const take = (value: number) => {
      if (value !== MAX32 || field + 8 > extra.end) return value;
      const wide = u64(view, field);
      field += 8;
      return wide;
    };
    size = take(size);
    compressedSize = take(compressedSize);
    localOffset = take(localOffset);
  }
  const name = new TextDecoder("utf-8").decode(
    new Uint8Array(view.buffer, view.byteOffset + at + 46, nameLength),
  );
  const flags = view.getUint16(at + 8, true);
  const method = view.getUint16(at + 10, true);
  return {
    value: { name, method, encrypted: (flags & 1) === 1, compressedSize, size, localOffset },
    next,
  };
}

function findExtra(
  view: DataView,
  start: number,
  length: number,
  id: number,
): { start: number; end: number } | undefined {
  let at = start;
  const end = start + length;
  while (at + 4 <= end) {
    const size = view.getUint16(at + 2, true);
    if (view.getUint16(at, true) === id)
      return { start: at + 4, end: Math.min(end, at + 4 + size) };
    at += 4 + size;
  }
  return undefined;
}

/** A 64-bit little-endian count as a number; past 2^53 it is only "huge", which is all a bound needs. */
function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
}
