/**
 * The `fetch` one attempt hands the SDK. It passes every byte of the reply
 * through unchanged, and on the way:
 *
 * - tells the attempt's watchdog that bytes arrived (the SDK's own timeout
 *   stops at the headers, so it cannot see a stream that stalls);
 * - refuses a stream event longer than `maxEventBytes` ({@link EventLengthGuard});
 * - keeps only the start of an error body, which the SDK reads whole;
 * - notes the content type, so a web page in place of a stream can be named.
 *
 * A provider that reads the stream itself (event-stream.ts, which watches
 * and guards it on the way) asks for the reply's body `as-is`: the first two
 * then happen there, without a second stream the bytes must pass through.
 */

/** A stream event (one SSE line) too long to read. */
export class OversizedEventError extends Error {
  override readonly name = "OversizedEventError";
  constructor(readonly maxBytes: number) {
    super(`a stream event longer than ${maxBytes} bytes`);
  }
}

export interface FetchWatch {
  /** Called for every piece of the body that arrives. */
  readonly heard: () => void;
  readonly maxEventBytes: number;
  /** How much of an error body is kept. */
  readonly maxErrorBytes: number;
  /** Filled in when the headers arrive. */
  contentType?: string | undefined;
}

/** What happens to the body of a successful reply: `guarded` for an SDK that reads it, `as-is` for a caller that guards it itself. */
export type OkBody = "guarded" | "as-is";

export function watchedFetch(
  watch: FetchWatch,
  okBody: OkBody = "guarded",
  base: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    watch.contentType = response.headers.get("content-type") ?? undefined;
    if (!response.body || (response.ok && okBody === "as-is")) return response;
    const transform = response.ok
      ? guardedEvents(watch.heard, watch.maxEventBytes)
      : prefixOnly(watch.heard, watch.maxErrorBytes);
    return new Response(response.body.pipeThrough(transform), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Refuses a stream line longer than `maxBytes`, looking only at the bytes:
 * the SDKs join a line by copying their whole buffer for every network
 * chunk, so one enormous line would hold the CPU (and every other
 * conversation) for minutes. It scans a chunk only up to its first line
 * break and back from its end to its last, so it costs next to nothing.
 */
export class EventLengthGuard {
  /** Bytes since the last line break: the length of the line still being assembled. */
  #open = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes the next chunk of the body; throws {@link OversizedEventError} once a line is too long. */
  check(chunk: Uint8Array): void {
    const first = lineBreak(chunk, 0, 1);
    if (first === -1) {
      this.#open += chunk.length;
    } else {
      if (this.#open + first > this.maxBytes) throw new OversizedEventError(this.maxBytes);
      // Lines that start and end inside this chunk are no longer than the chunk.
      this.#open = chunk.length - lineBreak(chunk, chunk.length - 1, -1) - 1;
    }
    if (this.#open > this.maxBytes) throw new OversizedEventError(this.maxBytes);
  }
}

function guardedEvents(heard: () => void, maxBytes: number) {
  const guard = new EventLengthGuard(maxBytes);
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      heard();
      try {
        guard.check(chunk);
      } catch (error) {
        return controller.error(error);
      }
      controller.enqueue(chunk);
    },
  });
}

function lineBreak(bytes: Uint8Array, from: number, step: 1 | -1): number {
  for (let i = from; i >= 0 && i < bytes.length; i += step) {
    if (bytes[i] === LF || bytes[i] === CR) return i;
  }
  return -1;
}

function prefixOnly(heard: () => void, maxBytes: number) {
  let kept = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      heard();
      if (kept >= maxBytes) return;
      const part = chunk.subarray(0, maxBytes - kept);
      kept += part.length;
      controller.enqueue(part);
      if (kept >= maxBytes) controller.terminate();
    },
  });
}
