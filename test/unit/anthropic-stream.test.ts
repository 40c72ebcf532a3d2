import * as sdk from "@anthropic-ai/sdk";
import { Stream } from "@anthropic-ai/sdk/streaming";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import {
  MessageDraft,
  type MessageReading,
  readMessageStream,
} from "../../src/providers/anthropic/stream.ts";
import { freshProgress, readReplyStream } from "../../src/providers/reply-stream.ts";
import { assertReadsAsSdk, outcome, webBodyOf } from "../support/event-bodies.ts";

const encoder = new TextEncoder();
const REQUEST = { method: "post", url: "https://api.anthropic.com/v1/messages" };
const limits = { maxAnswerChars: 300, maxToolCallChars: 200, maxToolCalls: 3 };

function reading(logged: string[] = []): MessageReading {
  return {
    progress: freshProgress(),
    logger: silentLogger,
    limits,
    watch: { heard: () => {}, maxEventBytes: 1 << 20, signal: new AbortController().signal },
    sdk,
    request: REQUEST,
    sdkLog: (message) => logged.push(message),
  };
}

/** The error as a person and the classifier see it: the SDK's APIError with all it carries. */
const apiErrorDetails = (error: Error) =>
  error instanceof sdk.APIError
    ? { status: error.status, type: error.type, body: error.error, request: error.request }
    : {};

/** The path this replaces: the body through the SDK's own Stream into the same draft. */
function readBySdk(body: ReadableStream<Uint8Array>) {
  const stream = Stream.fromSSEResponse(new Response(body), new AbortController(), undefined, {
    request: REQUEST,
  });
  return readReplyStream(stream, new MessageDraft(reading()));
}

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Pieces of Messages API streams, well formed and not, that a body is made of. */
const anthropicPiece = fc.oneof(
  fc.nat(50).map((n) =>
    event("message_start", {
      type: "message_start",
      message: { usage: { input_tokens: n, cache_read_input_tokens: 2, output_tokens: 1 } },
    }),
  ),
  fc.tuple(fc.nat(3), fc.string({ maxLength: 20 })).map(([index, text]) =>
    event("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "text", text },
    }),
  ),
  fc.nat(3).map((index) =>
    event("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: `toolu_${index}`, name: "get_weather", input: {} },
    }),
  ),
  fc.nat(3).map((index) =>
    event("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" },
    }),
  ),
  fc.tuple(fc.nat(3), fc.string({ maxLength: 30 })).map(([index, text]) =>
    event("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "text_delta", text },
    }),
  ),
  fc.tuple(fc.nat(3), fc.string({ maxLength: 20 })).map(([index, partial_json]) =>
    event("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "input_json_delta", partial_json },
    }),
  ),
  fc
    .tuple(
      fc.nat(3),
      fc.constantFrom("thinking_delta", "signature_delta"),
      fc.string({ maxLength: 10 }),
    )
    .map(([index, type, piece]) =>
      event("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type, [type === "thinking_delta" ? "thinking" : "signature"]: piece },
      }),
    ),
  fc.nat(3).map((index) => event("content_block_stop", { type: "content_block_stop", index })),
  fc
    .constantFrom("end_turn", "tool_use", "max_tokens", "refusal", "pause_turn", "other")
    .map((stop) =>
      event("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stop },
        usage: { output_tokens: 9 },
      }),
    ),
  fc.constant(event("message_stop", { type: "message_stop" })),
  fc.constant(event("ping", { type: "ping" })),
  fc.constant("event: ping\ndata: not json at all\n\n"),
  fc.constantFrom("overloaded_error", "api_error", "rate_limit_error").map((type) =>
    event("error", {
      type: "error",
      error: { type, message: `scripted ${type}`, details: { error_code: "x" } },
      request_id: "req_1",
    }),
  ),
  fc.constant("event: error\ndata: {not json\n\n"),
  fc.constant("event: error\ndata: null\n\n"),
  fc.constant('event: error\ndata: {"message":"no error field"}\n\n'),
  // No event name: the SDK skips these, whatever they hold.
  fc.constant(
    'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unnamed"}}\n\n',
  ),
  fc.constant('data: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}\n\n'),
  fc.constant("data: {not json\n\n"),
  fc.constant("event: content_block_delta\ndata:\n\n"),
  fc.constant("event: content_block_delta\n\n"),
  fc.constant("event: message_delta\ndata: {not json\n\n"),
  fc.constant(": keep-alive\n\n"),
  fc
    .tuple(fc.constantFrom("message_delta", "content_block_delta", "unknown_event"), fc.jsonValue())
    .map(([name, value]) => `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`),
);

describe("reading a Messages API stream", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("answers every stream exactly as the SDK's Stream did, wherever the network cuts it", async () => {
    // The SDK's Stream, made without a client, logs an event that is not JSON to the console.
    vi.spyOn(console, "error").mockImplementation(() => {});
    await assertReadsAsSdk(
      anthropicPiece,
      (body) => outcome(readMessageStream(new Response(body), reading()), apiErrorDetails),
      (body) => outcome(readBySdk(body), apiErrorDetails),
      400,
    );
  });

  it("turns an overloaded error event into the SDK's APIError with no status, naming the request", async () => {
    const bytes = encoder.encode(
      `${event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } })}${event("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" }, request_id: "req_9" })}`,
    );

    const error = await readMessageStream(new Response(webBodyOf(bytes)), reading()).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(sdk.APIError);
    expect(error).toMatchObject({ status: undefined, type: "overloaded_error" });
    expect((error as Error).message).toBe(
      "Overloaded (request_id: req_9, path: /v1/messages, type: overloaded_error)",
    );
  });

  it("logs an event that is not JSON through the SDK's logger, then fails with its SyntaxError", async () => {
    const logged: string[] = [];
    const bytes = encoder.encode("event: content_block_delta\ndata: {cut\n\n");

    const error = await readMessageStream(new Response(webBodyOf(bytes)), reading(logged)).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(SyntaxError);
    expect(logged).toEqual(["Could not parse message into JSON:"]);
  });
});
