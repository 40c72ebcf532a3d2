import { createParser, type EventSourceMessage } from "eventsource-parser";
import { EventLengthGuard, type FetchWatch } from "./watched-fetch.ts";

export type { EventSourceMessage } from "eventsource-parser";

/** What reading one attempt's event stream watches. */
export interface EventStreamWatch extends Pick<FetchWatch, "heard" | "maxEventBytes"> {
  /** The attempt's signal: once it aborts, reading ends quietly. */
  readonly signal: AbortSignal;
}

const CR = 0x0d;
/** Decodes a chunk that may end inside a character, keeping its start for the next. */
const MORE_TO_COME = { stream: true } as const;

/**
 * Reads a `text/event-stream` body straight off the response, handing each
 * event to `onEvent` until the body ends or `onEvent` returns false: one
 * reader over the bytes, one streaming UTF-8 decoder, and eventsource-parser
 * for the framing (fields, comments, data over several lines, CR, LF and CRLF
 * line ends, lines cut anywhere by the network). Every chunk tells the
 * watchdog that the server is alive and passes the {@link EventLengthGuard}
 * before it is decoded, so an oversized line is refused before it is held.
 *
 * An SDK's stream reader does the same through a stack of async generators
 * and byte copies per chunk, which cost a worker with a thousand replies
 * streaming at once about a seventh of its CPU (issue 36).
 *
 * Like the SDKs, reading ends quietly when `signal` aborts, so the caller
 * checks the signal afterwards. Whatever ends it early, the rest of the body
 * is cancelled, which ends the request.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array> | null,
  watch: EventStreamWatch,
  onEvent: (event: EventSourceMessage) => boolean,
): Promise<void> {
  if (!body) return;
  const { signal } = watch;
  const reader = body.getReader();
  const guard = new EventLengthGuard(watch.maxEventBytes);
  const decoder = new TextDecoder();
  let reading = true;
  const parser = createParser({
    onEvent(event) {
      if (reading && (signal.aborted || !onEvent(event))) reading = false;
    },
  });
  let ended = false;
  let lastByte = 0;
  try {
    while (reading) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        // A CR ends its line, but the parser holds one that comes last to see whether an LF follows.
        if (lastByte === CR) parser.feed("\n");
        return;
      }
      watch.heard();
      guard.check(value);
      if (value.length > 0) lastByte = value[value.length - 1] as number;
      parser.feed(decoder.decode(value, MORE_TO_COME));
      if (signal.aborted) return;
    }
  } catch (error) {
    if (isAbort(error)) return;
    throw error;
  } finally {
    if (!ended) reader.cancel().catch(() => {});
  }
}

/** A fetch whose signal aborted fails its body's reads with an `AbortError`. */
function isAbort(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && "name" in error && error.name === "AbortError"
  );
}
