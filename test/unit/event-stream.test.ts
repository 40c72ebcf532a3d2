import { once } from "node:events";
import { Readable } from "node:stream";
import fc from "fast-check";
import { APIError } from "openai";
import { Stream } from "openai/streaming";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/core/agent/provider.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { readEventStream } from "../../src/providers/event-stream.ts";
import {
  CompletionDraft,
  type CompletionReading,
  readCompletionStream,
} from "../../src/providers/openai-stream.ts";
import {
  freshProgress,
  readReplyStream,
  StreamEndedEarlyError,
} from "../../src/providers/reply-stream.ts";
import { OversizedEventError } from "../../src/providers/watched-fetch.ts";
import {
  assertReadsAsSdk,
  type Body,
  bodyOf,
  BODY_KINDS as KINDS,
  type BodyKind as Kind,
  LINE_ENDS,
  outcome,
  webBodyOf,
} from "../support/event-bodies.ts";

const encoder = new TextEncoder();

/** A body that sends `data: 1`, `data: 2`, ... for as long as it is read; `cancelled` once it is not. */
function endlessBody(kind: Kind): { body: Body; pulls: () => number; cancelled: () => boolean } {
  let pulls = 0;
  let cancelled = false;
  const next = () => encoder.encode(`data: ${++pulls}\n\n`);
  const body: Body =
    kind === "a web stream"
      ? new ReadableStream<Uint8Array>({
          pull: (controller) => controller.enqueue(next()),
          cancel: () => {
            cancelled = true;
          },
        })
      : new Readable({
          read() {
            this.push(next());
          },
          destroy(error, callback) {
            cancelled = true;
            callback(error);
          },
        });
  return { body, pulls: () => pulls, cancelled: () => cancelled };
}

/** A body that sends two events, then fails with an AbortError when `signal` aborts, as fetch's and undici's do. */
function abortedBody(kind: Kind, signal: AbortSignal): Body {
  const bytes = encoder.encode("data: 1\n\ndata: 2\n\n");
  const aborted = () => new DOMException("This operation was aborted", "AbortError");
  if (kind === "a socket's stream") {
    const body = new Readable({ read() {} });
    body.push(bytes);
    signal.addEventListener("abort", () => body.destroy(aborted()));
    return body;
  }
  return new ReadableStream<Uint8Array>({
    start(stream) {
      stream.enqueue(bytes);
      signal.addEventListener("abort", () => stream.error(aborted()));
    },
  });
}

const watching = (maxEventBytes = 1 << 20, signal = new AbortController().signal) => ({
  heard: () => {},
  maxEventBytes,
  signal,
});

async function eventsOf(body: Body, maxEventBytes?: number) {
  const events: { event: string | undefined; data: string }[] = [];
  await readEventStream(body, watching(maxEventBytes), ({ event, data }) => {
    events.push({ event, data });
    return true;
  });
  return events;
}

/** Text without line breaks or lone surrogates (which UTF-8 cannot carry), often beyond ASCII. */
const lineText = (maxLength: number) =>
  fc
    .string({
      unit: fc.oneof(
        fc.constantFrom("a", " ", ":", "{", '"', "é", "€", "😀", "中"),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      ),
      maxLength,
    })
    .map((text) => text.replace(/[\r\n]/g, ""));

/** Lines a stream may carry between an event's fields, which never make an event themselves. */
const ignoredLine = fc.oneof(
  lineText(20).map((text) => `:${text}`),
  fc.constant(": keep-alive"),
  lineText(10).map((text) => `id: ${text}`),
  fc.nat(5_000).map((ms) => `retry: ${ms}`),
  fc.constant("retry: soon"),
  lineText(10).map((text) => `x-unknown: ${text}`),
);

const streamEvent = fc.record({
  name: fc.option(lineText(12), { nil: undefined }),
  dataLines: fc.array(lineText(40), { minLength: 1, maxLength: 4 }),
  extra: fc.array(ignoredLine, { maxLength: 2 }),
});

describe.each(KINDS)("reading an event stream from %s", (kind) => {
  it("yields exactly the events written, whatever the line ends and wherever the network cuts the bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(streamEvent, { maxLength: 8 }),
        fc.constantFrom(...LINE_ENDS),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (events, end, cuts) => {
          const lines = events.flatMap(({ name, dataLines, extra }) => [
            ...extra,
            ...(name === undefined ? [] : [`event: ${name}`]),
            ...dataLines.map((line) => `data: ${line}`),
            "",
          ]);
          const bytes = encoder.encode(lines.map((line) => `${line}${end}`).join(""));

          expect(await eventsOf(bodyOf(bytes, cuts, kind))).toEqual(
            events.map(({ name, dataLines }) => ({
              event: name || undefined,
              data: dataLines.join("\n"),
            })),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it("drops an event the stream ends before finishing, as the SDKs do", async () => {
    const bytes = encoder.encode('data: {"a":1}\n\ndata: {"b":2}\n');

    expect(await eventsOf(bodyOf(bytes, [3, 20], kind))).toEqual([
      { event: undefined, data: '{"a":1}' },
    ]);
  });

  it("refuses a stream exactly when a line longer than the limit arrives in pieces, wherever they are cut", async () => {
    // A line inside one network chunk is bounded by that chunk; what must never grow past the
    // limit is a line held across chunks, which is how an enormous one arrives.
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(120), fc.constantFrom(...LINE_ENDS)), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (lines, cuts) => {
          const max = 64;
          // "data:" lines of the given lengths, whose events never finish: only the guard can fail.
          const bytes = encoder.encode(
            lines.map(([n, end]) => `data:${"x".repeat(n)}${end}`).join(""),
          );
          const pieces = [
            ...cuts,
            ...Array.from({ length: Math.ceil(bytes.length / max) }, (_, i) => i * max),
          ];
          const longest = Math.max(0, ...lines.map(([n]) => n + "data:".length));
          const reading = eventsOf(bodyOf(bytes, pieces, kind), max);

          if (longest > max) await expect(reading).rejects.toBeInstanceOf(OversizedEventError);
          else await expect(reading).resolves.toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never refuses a stream whose lines all fit, however it is cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(64), fc.constantFrom(...LINE_ENDS)), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (lines, cuts) => {
          const bytes = encoder.encode(lines.map(([n, end]) => `:${"x".repeat(n)}${end}`).join(""));

          await expect(eventsOf(bodyOf(bytes, cuts, kind), 65)).resolves.toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts a line's bytes, not its characters", async () => {
    // 30 characters, 120 bytes.
    const line = `data: ${"😀".repeat(30)}\n\n`;

    await expect(eventsOf(bodyOf(encoder.encode(line), [], kind), 100)).rejects.toBeInstanceOf(
      OversizedEventError,
    );
  });

  it("tells the watchdog about every piece of the body, keep-alive comments included", async () => {
    let heard = 0;
    const bytes = encoder.encode(": keep-alive\n\n: keep-alive\n\ndata: 1\n\n");

    await readEventStream(
      bodyOf(bytes, [14, 28], kind),
      { ...watching(), heard: () => heard++ },
      () => true,
    );

    expect(heard).toBe(3);
  });

  it("stops downloading once the reader has enough, cancelling the rest of the body", async () => {
    const { body, cancelled } = endlessBody(kind);
    const seen: string[] = [];

    await readEventStream(body, watching(), ({ data }) => {
      seen.push(data);
      return seen.length < 3;
    });

    expect(seen).toEqual(["1", "2", "3"]);
    expect(cancelled()).toBe(true);
  });

  it("ends quietly when the attempt's signal aborts, leaving the caller to say why", async () => {
    const controller = new AbortController();
    const body = abortedBody(kind, controller.signal);
    const seen: string[] = [];

    await readEventStream(body, watching(undefined, controller.signal), ({ data }) => {
      seen.push(data);
      controller.abort();
      return true;
    });

    expect(seen).toEqual(["1"]);
  });
});

describe("reading an event stream from a socket's stream", () => {
  it("fails as fetch's body does when the connection breaks in the middle", async () => {
    const body = new Readable({ read() {} });
    body.push(encoder.encode("data: 1\n\n"));
    const seen: string[] = [];
    const reading = readEventStream(body, watching(), ({ data }) => {
      seen.push(data);
      body.destroy(Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }));
      return true;
    });

    const error = await reading.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("terminated");
    expect(seen).toEqual(["1"]);
  });

  it("fails the same way for a body that broke before anyone read it, and ends quietly for one aborted", async () => {
    const broken = new Readable({ read() {} });
    broken.on("error", () => {}).destroy(new Error("other side closed"));
    const aborted = new Readable({ read() {} });
    aborted.on("error", () => {}).destroy(new DOMException("aborted", "AbortError"));

    await expect(readEventStream(broken, watching(), () => true)).rejects.toThrow("terminated");
    await expect(readEventStream(aborted, watching(), () => true)).resolves.toBeUndefined();
  });

  it("leaves no error behind when it stops early: undici's body fails itself once destroyed", async () => {
    // undici's BodyReadable turns a destroy without an error into an AbortError it emits.
    const body = new Readable({
      read() {
        this.push(encoder.encode("data: 1\n\n"));
      },
      destroy(_error, callback) {
        callback(new DOMException("Request aborted", "AbortError"));
      },
    });
    const uncaught = vi.fn();
    process.on("uncaughtException", uncaught);
    try {
      await readEventStream(body, watching(), () => false);
      // A destroyed stream emits its error, then "close".
      if (!body.closed) await once(body, "close");
    } finally {
      process.off("uncaughtException", uncaught);
    }

    expect(body.destroyed).toBe(true);
    expect(uncaught).not.toHaveBeenCalled();
  });
});

/** A Chat Completions chunk event, as OpenAI streams it. */
const chunkEvent = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 0,
    model: "gpt-test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;

const limits = { maxAnswerChars: 300, maxToolCallChars: 200, maxToolCalls: 3 };

function reading(maxEventBytes = 1 << 20): CompletionReading {
  return {
    progress: freshProgress(),
    logger: silentLogger,
    limits,
    watch: watching(maxEventBytes),
    sdkLog: () => {},
  };
}

/** The path this replaces: the body through the SDK's Stream into the same draft. */
function readBySdk(body: ReadableStream<Uint8Array>) {
  const response = new Response(body);
  const stream = Stream.fromSSEResponse(response, new AbortController());
  return readReplyStream(stream, new CompletionDraft(reading()));
}

/** Pieces of OpenAI streams, well formed and not, that a body is made of. */
const openAIPiece = fc.oneof(
  fc.string({ maxLength: 30 }).map((content) => chunkEvent({ content })),
  fc.constantFrom("stop", "length", "tool_calls").map((finish) => chunkEvent({}, finish)),
  fc.tuple(fc.nat(4), fc.string({ maxLength: 20 })).map(([index, args]) =>
    chunkEvent({
      tool_calls: [{ index, id: `c${index}`, function: { name: "f", arguments: args } }],
    }),
  ),
  fc.constant('data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n'),
  fc.constant(": keep-alive\n\n"),
  fc.constant("data: [DONE]\n\n"),
  fc.constant('data: {"error":{"message":"boom","type":"server_error"}}\n\n'),
  fc.constant('event: error\ndata: {"error":{"message":"overloaded"}}\n\n'),
  fc.constant('event: error\ndata: {"message":"no error field"}\n\n'),
  fc.constant('data: {"error":null,"choices":[]}\n\n'),
  fc.constant("data: {not json\n\n"),
  fc.jsonValue().map((value) => `data: ${JSON.stringify(value)}\n\n`),
);

describe("reading a Chat Completions stream", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("answers every stream exactly as the SDK's Stream did, wherever the network cuts it", async () => {
    // The SDK's Stream, made without a client, logs an event that is not JSON to the console.
    vi.spyOn(console, "error").mockImplementation(() => {});
    await assertReadsAsSdk(
      openAIPiece,
      (body) => outcome(readCompletionStream(new Response(body), reading())),
      (body) => outcome(readBySdk(body)),
      300,
    );
  });

  it("turns an error event into the SDK's APIError, with the provider's words and no status", async () => {
    const bytes = encoder.encode(
      `${chunkEvent({ content: "Hel" })}event: error\ndata: {"error":{"message":"overloaded","type":"server_error"}}\n\n`,
    );

    const error = await readCompletionStream(new Response(webBodyOf(bytes)), reading()).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBeUndefined();
    expect((error as APIError).message).toBe("overloaded");
  });

  it("logs an event that is not JSON through the SDK's logger, then throws its SyntaxError", async () => {
    const logged: unknown[][] = [];
    const bytes = encoder.encode("data: {half\n\n");

    const error = await readCompletionStream(new Response(webBodyOf(bytes)), {
      ...reading(),
      sdkLog: (...args) => void logged.push(args),
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SyntaxError);
    expect(logged).toEqual([["Could not parse message into JSON:", "{half"]]);
  });

  it("never fails on any bytes at all with anything but the errors a failure message is made from", async () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc
        .constantFrom(
          "data: ",
          "data:",
          "event: error\n",
          "\n",
          "\r",
          "\r\n",
          ":",
          "[DONE]",
          '{"error":{"message":"x"}}',
          '{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}',
          '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":9,"id":"a"}]}}]}',
          "\uFEFF",
          "\xff\xfe",
        )
        .map((text) => encoder.encode(text)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (pieces, cuts) => {
          const bytes = new Uint8Array(pieces.flatMap((p) => [...p]));
          const result = await readCompletionStream(
            new Response(webBodyOf(bytes, cuts)),
            reading(48),
          ).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (result === undefined) return;
          expect(
            [OversizedEventError, SyntaxError, APIError, StreamEndedEarlyError, ProviderError].some(
              (type) => result instanceof type,
            ),
          ).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
