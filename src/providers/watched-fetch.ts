/**
 * The `fetch` one attempt hands the SDK. It passes every byte of the reply
 * through unchanged, and on the way:
 *
 * - tells the attempt's watchdog that bytes arrived (the SDK's own timeout
 *   stops at the headers, so it cannot see a stream that stalls);
 * - refuses a stream event longer than `maxEventBytes`: the SDK joins a line
 *   by copying its whole buffer for every network chunk, so one enormous line
 *   would hold the CPU (and every other conversation) for minutes;
 * - keeps only the start of an error body, which the SDK reads whole;
 * - notes the content type, so a web page in place of a stream can be named.
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

export function watchedFetch(watch: FetchWatch, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    watch.contentType = response.headers.get("content-type") ?? undefined;
    if (!response.body) return response;
    const transform = response.ok
      ? eventLengthGuard(watch.heard, watch.maxEventBytes)
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

function eventLengthGuard(heard: () => void, maxBytes: number) {
  // Bytes since the last line break: the length of the line the SDK is still assembling.
  let open = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      heard();
      const first = lineBreak(chunk, 0, 1);
      if (first === -1) {
        open += chunk.length;
      } else {
        if (open + first > maxBytes) return controller.error(new OversizedEventError(maxBytes));
        // Lines that start and end inside this chunk are no longer than the chunk.
        open = chunk.length - lineBreak(chunk, chunk.length - 1, -1) - 1;
      }
      if (open > maxBytes) return controller.error(new OversizedEventError(maxBytes));
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
