import { Readable } from "node:stream";
import fc from "fast-check";
import { expect } from "vitest";

const encoder = new TextEncoder();

/** The line ends an event stream may use, each of which the readers must take. */
export const LINE_ENDS = ["\n", "\r\n", "\r"] as const;

/** The two bodies a reply may have: `fetch`'s, and the socket's own (model-fetch.ts). */
export const BODY_KINDS = ["a web stream", "a socket's stream"] as const;
export type BodyKind = (typeof BODY_KINDS)[number];
export type Body = ReadableStream<Uint8Array> | Readable;

/** A body that delivers `bytes` in the pieces the cuts make, as a network would. */
export function bodyOf(
  bytes: Uint8Array,
  cuts: readonly number[] = [],
  kind: BodyKind = BODY_KINDS[0],
): Body {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    pieces.push(bytes.slice(from, to));
    from = to;
  }
  if (kind === "a socket's stream") return Readable.from(pieces);
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}

export function webBodyOf(
  bytes: Uint8Array,
  cuts: readonly number[] = [],
): ReadableStream<Uint8Array> {
  return bodyOf(bytes, cuts) as ReadableStream<Uint8Array>;
}

/**
 * What reading a body amounts to: the reply, or the error's class and
 * message, with what `details` adds for an error a test looks into further.
 */
export async function outcome(
  read: Promise<unknown>,
  details: (error: Error) => object = () => ({}),
): Promise<unknown> {
  return read.then(
    (reply) => ({ reply }),
    (error: unknown) =>
      error instanceof Error
        ? { error: error.constructor.name, message: error.message, ...details(error) }
        : { error },
  );
}

/**
 * Holds a stream reader to the SDK's `Stream` it replaced: on any body made
 * of `piece`s, with any line ends, cut anywhere by the network, `ours` and
 * `sdk` (each handed its own copy of the body) come to the same outcome.
 */
export async function assertReadsAsSdk(
  piece: fc.Arbitrary<string>,
  ours: (body: ReadableStream<Uint8Array>) => Promise<unknown>,
  sdk: (body: ReadableStream<Uint8Array>) => Promise<unknown>,
  numRuns: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(piece, { maxLength: 12 }),
      fc.constantFrom(...LINE_ENDS),
      fc.array(fc.nat(), { maxLength: 10 }),
      async (pieces, end, cuts) => {
        const bytes = encoder.encode(pieces.join("").replace(/\n/g, end));

        expect(await ours(webBodyOf(bytes, cuts))).toEqual(await sdk(webBodyOf(bytes, cuts)));
      },
    ),
    { numRuns },
  );
}
