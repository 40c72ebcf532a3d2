/** A response body read up to a limit. */
export interface CappedBody {
  readonly bytes: Uint8Array;
  /** The body went on past the limit; the rest was never downloaded. */
  readonly truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a body and cancels the rest, so a huge page, a
 * never-ending stream or a compression bomb costs at most `maxBytes` of
 * memory (undici decompresses as it streams, so the limit is on what the
 * bytes decompress to). Read errors (an abort, a reset connection) propagate.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<CappedBody> {
  if (body === null) return { bytes: new Uint8Array(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  try {
    // One byte past the limit tells a body that ends exactly there from one that goes on.
    while (total <= maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    if (total > maxBytes) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(Math.min(total, maxBytes));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.byteLength - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset === bytes.byteLength) break;
  }
  return { bytes, truncated: total > maxBytes };
}
