import { Readable } from "node:stream";
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { isAbort } from "./model-fetch.ts";
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
 * Reads a `text/event-stream` body as it arrives, handing each event to
 * `onEvent` until the body ends or `onEvent` returns false: one streaming
 * UTF-8 decoder, and eventsource-parser for the framing (fields, comments,
 * data over several lines, CR, LF and CRLF line ends, lines cut anywhere by
 * the network). Every chunk tells the watchdog that the server is alive and
 * passes the {@link EventLengthGuard} before it is decoded, so an oversized
 * line is refused before it is held.
 *
 * The body is the socket's Node stream when the provider's own fetch made
 * the request (model-fetch.ts), read as its chunks come; or a WHATWG stream,
 * read with one reader. An SDK's stream reader does the same through a
 * stack of async generators and byte copies per chunk, which cost a worker
 * with a thousand replies streaming at once about a seventh of its CPU
 * (issue 36).
 *
 * Like the SDKs, reading ends quietly when `signal` aborts, so the caller
 * checks the signal afterwards; a connection that breaks in the middle
 * fails with `TypeError: terminated`, as `fetch`'s body does. Whatever ends
 * it early, the rest of the body is cancelled, which ends the request.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array> | Readable | null,
  watch: EventStreamWatch,
  onEvent: (event: EventSourceMessage) => boolean,
): Promise<void> {
  if (!body) return;
  const feed = new EventFeed(watch, onEvent);
  if (body instanceof Readable) return readSocket(body, feed);
  const reader = body.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        feed.end();
        return;
      }
      if (!feed.take(value)) return;
    }
  } catch (error) {
    if (isAbort(error)) return;
    throw error;
  } finally {
    if (!ended) reader.cancel().catch(() => {});
  }
}

/** Chunks of an event stream in, events out, as {@link readEventStream} says. */
class EventFeed {
  readonly #signal: AbortSignal;
  readonly #heard: () => void;
  readonly #guard: EventLengthGuard;
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  #reading = true;
  #lastByte = 0;

  constructor(watch: EventStreamWatch, onEvent: (event: EventSourceMessage) => boolean) {
    this.#signal = watch.signal;
    this.#heard = watch.heard;
    this.#guard = new EventLengthGuard(watch.maxEventBytes);
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.#reading && (this.#signal.aborted || !onEvent(event))) this.#reading = false;
      },
    });
  }

  /** Takes the next chunk; false once reading should stop. */
  take(chunk: Uint8Array): boolean {
    this.#heard();
    this.#guard.check(chunk);
    if (chunk.length > 0) this.#lastByte = chunk[chunk.length - 1] as number;
    this.#parser.feed(this.#decoder.decode(chunk, MORE_TO_COME));
    return this.#reading && !this.#signal.aborted;
  }

  /** The body ended. */
  end(): void {
    // A CR ends its line, but the parser holds one that comes last to see whether an LF follows.
    if (this.#reading && this.#lastByte === CR) this.#parser.feed("\n");
  }
}

function ignore(): void {}

/** Feeds a socket's body to `feed` chunk by chunk, as it comes, until it ends or the feed stops. */
function readSocket(body: Readable, feed: EventFeed): Promise<void> {
  // It may have failed (or been aborted) before anyone read it.
  if (body.destroyed) {
    if (isAbort(body.errored)) return Promise.resolve();
    return Promise.reject(new TypeError("terminated", { cause: body.errored }));
  }
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      body.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      // Stopping early ends the request, as cancelling a fetch body does. undici's body then
      // fails itself with an AbortError: with no listener left, that would end the process.
      if (!body.readableEnded) body.on("error", ignore).destroy();
      if (error === undefined) resolve();
      else reject(error);
    };
    const onData = (chunk: Uint8Array) => {
      try {
        if (!feed.take(chunk)) settle();
      } catch (error) {
        settle(error);
      }
    };
    const onEnd = () => {
      try {
        feed.end();
        settle();
      } catch (error) {
        settle(error);
      }
    };
    // An abort ends reading quietly; a connection that breaks reads as fetch's does.
    const onError = (error: unknown) =>
      settle(isAbort(error) ? undefined : new TypeError("terminated", { cause: error }));
    const onClose = () => settle(new TypeError("terminated"));
    body.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
