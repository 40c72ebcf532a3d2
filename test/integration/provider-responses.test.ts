import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/core/agent/provider.ts";
import { DEFAULT_MODEL_LIMITS } from "../../src/core/config/index.ts";
import { withheldArguments } from "../../src/core/tools/arguments.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { API_KEY, ask, failureOf, type Harness, harness } from "../support/provider.ts";

/** A stream event as OpenAI sends it, for bodies written by hand. */
const event = (data: unknown) =>
  `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  event({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 0,
    model: "gpt-test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("model responses that are malformed, enormous or nested", () => {
  let fake: FakeOpenAI;
  let h: Harness;

  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: API_KEY });
    h = harness(() => fake);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await fake.close();
    expect(JSON.stringify(h.warnings)).not.toContain(API_KEY);
  });

  describe("malformed streams", () => {
    it("answers a stream event that is not JSON plainly, logging it cut short instead of on the console", async () => {
      const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
      fake.setResponder(() => ({
        body: [
          chunk({ role: "assistant", content: "" }),
          `data: {"choices": [${"x".repeat(5_000)}\n\n`,
        ],
      }));

      const error = await failureOf(h.provider({ maxRetries: 1 }).complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toBe(
        `The model provider at ${fake.url} sent a reply that is not valid JSON. Check that OPENAI_BASE_URL points to an OpenAI-compatible API (it usually ends in /v1).`,
      );
      expect(fake.requests).toHaveLength(2);
      expect(consoleError).not.toHaveBeenCalled();
      const logged = h.warnings.filter((w) => w.message.startsWith("openai SDK"));
      expect(logged.length).toBeGreaterThan(0);
      for (const w of logged) expect(String(w.fields?.details).length).toBeLessThanOrEqual(300);
    });

    it("skips events that are JSON but not chunks, and still answers", async () => {
      fake.script({
        body: [
          event(42),
          event("null"),
          event({ hello: "world" }),
          event({ choices: "many" }),
          chunk({ content: 7 }),
          chunk({ tool_calls: "none" }),
          chunk({ tool_calls: [null, 5, { index: "x" }] }),
          chunk({ content: "Still " }),
          chunk({ content: "here." }, "stop"),
          event("[DONE]"),
        ],
      });

      const reply = await h.provider().complete(ask());

      expect(reply.content).toBe("Still here.");
      expect(reply.finishReason).toBe("stop");
      expect(reply.toolCalls).toEqual([]);
    });

    it("says the reply could not be read when no event is a chunk", async () => {
      fake.setResponder(() => ({
        body: [event({ hello: "world" }), event([1, 2]), event("[DONE]")],
      }));

      const error = await failureOf(h.provider({ maxRetries: 0 }).complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toMatch(
        /sent a reply I could not read \(2 of its 2 stream events were not chat completion chunks\)/,
      );
    });

    it("answers a stream that ends without a finish reason, after retrying it", async () => {
      fake.setResponder(() => ({ content: "half an answer", omitFinishReason: true }));

      const error = await failureOf(h.provider({ maxRetries: 2 }).complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toBe(
        `half an answer\n\n(The model's reply stopped before it was finished (the server at ${fake.url} ended the stream without saying it was done). Please try again.)`,
      );
      expect(fake.requests).toHaveLength(3);
    });

    it("accepts tool-call pieces from a server that leaves out their index", async () => {
      fake.script({
        body: [
          chunk({
            tool_calls: [
              { id: "a", type: "function", function: { name: "write_note", arguments: '{"te' } },
            ],
          }),
          chunk({ tool_calls: [{ function: { arguments: 'xt":"one"}' } }] }),
          chunk({
            tool_calls: [
              {
                id: "b",
                type: "function",
                function: { name: "write_note", arguments: '{"text":"two"}' },
              },
            ],
          }),
          chunk({}, "tool_calls"),
        ],
      });

      const reply = await h.provider().complete(ask());

      expect(reply.toolCalls.map((c) => [c.id, c.function.arguments])).toEqual([
        ["a", '{"text":"one"}'],
        ["b", '{"text":"two"}'],
      ]);
    });
  });

  describe("enormous replies", () => {
    it("cuts an answer of many megabytes at the limit, says so, and stops downloading", async () => {
      const huge = "lorem ipsum ".repeat(500_000);
      fake.script({ content: huge, contentChunkChars: 4_096 });
      let shown = 0;

      const reply = await h.provider({ limits: { maxAnswerChars: 10_000 } }).complete(
        ask({
          onText: (soFar) => {
            shown = soFar.length;
          },
        }),
      );

      expect(reply.finishReason).toBe("length");
      expect(reply.toolCalls).toEqual([]);
      expect(reply.content).toBe(
        `${huge.slice(0, 10_000)}\n\n(This answer was cut here: it passed 10000 characters, the most one answer may have. Ask for the rest, or for a shorter answer.)`,
      );
      expect(shown).toBe(10_000);
    });

    it("does not run a tool call whose arguments are 10 MB, and tells the model why", async () => {
      const big = JSON.stringify({ text: "x".repeat(10 * 1024 * 1024) });
      fake.script({
        toolCalls: [
          { id: "call_big", name: "write_note", arguments: big },
          { id: "call_ok", name: "write_note", arguments: { text: "short" } },
        ],
        argumentsChunkChars: 65_536,
      });

      const reply = await h.provider().complete(ask());

      expect(reply.finishReason).toBe("tool_calls");
      expect(reply.toolCalls).toEqual([
        {
          id: "call_big",
          type: "function",
          function: {
            name: "write_note",
            arguments: withheldArguments({
              kind: "size",
              chars: big.length,
              maxChars: DEFAULT_MODEL_LIMITS.maxToolCallChars,
            }),
          },
        },
        {
          id: "call_ok",
          type: "function",
          function: { name: "write_note", arguments: '{"text":"short"}' },
        },
      ]);
      expect(() => JSON.parse(reply.toolCalls[0]?.function.arguments ?? "")).toThrow();
    });

    it("runs none of thousands of tool calls in one reply and says so", async () => {
      fake.script({
        toolCalls: Array.from({ length: 3_000 }, (_, i) => ({
          name: "write_note",
          arguments: { text: `n${i}` },
        })),
      });

      const error = await failureOf(h.provider().complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toBe(
        "The model asked for more than 32 tool calls in one reply, so I ran none of them. Please try again, or ask for fewer things at once. (The limit is SWITCHYARD_MODEL_MAX_TOOL_CALLS.)",
      );
      expect(fake.requests).toHaveLength(1);
    });

    it("stops reading a single stream event larger than any capped reply could need", async () => {
      const line = chunk({
        tool_calls: [
          { index: 0, id: "c", function: { name: "write_note", arguments: "y".repeat(3_000_000) } },
        ],
      });
      fake.script({ body: [line.slice(0, 1_000_000), line.slice(1_000_000)] });

      const error = await failureOf(h.provider().complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toMatch(
        /sent a single stream event of more than 0\.8 MB, so I stopped reading the reply/,
      );
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe("nested tool-call arguments", () => {
    it("refuses arguments nested deeper than any tool schema, without running them", async () => {
      // 15,000 levels: valid JSON under the size cap, which JSON.parse reads and JSON.stringify cannot write back.
      fake.script({
        toolCalls: [{ id: "d", name: "write_note", arguments: nested(15_000) }],
        argumentsChunkChars: 4_096,
      });

      const reply = await h.provider().complete(ask());

      expect(reply.toolCalls[0]?.function.arguments).toBe(withheldArguments({ kind: "depth" }));
    });

    it("passes arguments through that nest as deep as a real schema does", async () => {
      fake.script({ toolCalls: [{ id: "n", name: "write_note", arguments: nested(20) }] });

      const reply = await h.provider().complete(ask());

      expect(reply.toolCalls[0]?.function.arguments).toBe(nested(20));
    });

    it("does not count brackets inside strings as nesting", async () => {
      const args = JSON.stringify({ text: "[[[[".repeat(100), quote: '"{{{' });
      fake.script({ toolCalls: [{ id: "s", name: "write_note", arguments: args }] });

      const reply = await h.provider().complete(ask());

      expect(reply.toolCalls[0]?.function.arguments).toBe(args);
    });
  });

  describe("bodies that are not an API's", () => {
    it("names a 200 with an empty body as an empty reply", async () => {
      fake.setResponder(() => ({ body: "" }));

      const error = await failureOf(h.provider({ maxRetries: 1 }).complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toBe(
        `The model provider at ${fake.url} sent an empty reply. Please try again. If this keeps happening, check that OPENAI_BASE_URL points to an OpenAI-compatible API (it usually ends in /v1).`,
      );
      expect(fake.requests).toHaveLength(2);
    });

    it("names a web page answered with 200 instead of a stream, without retrying", async () => {
      fake.setResponder(() => ({
        contentType: "text/html; charset=utf-8",
        body: "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body>hi</body></html>\n",
      }));

      const error = await failureOf(h.provider().complete(ask()));

      expect(error.kind).toBe("bad_response");
      expect(error.message).toBe(
        `The model provider at ${fake.url} answered with a web page (text/html) instead of a stream of chat completion chunks. Check that OPENAI_BASE_URL points to an OpenAI-compatible API (it usually ends in /v1).`,
      );
      expect(fake.requests).toHaveLength(1);
    });

    it("names an HTML error page by its title instead of pasting the page into the chat", async () => {
      fake.script({
        status: 404,
        contentType: "text/html",
        errorBody: `<html>\n<head><title>404 Not Found</title></head>\n<body><center><h1>404 Not Found</h1></center><hr><center>nginx</center>${"<p>padding</p>".repeat(1_000)}</body>\n</html>`,
      });

      const error = await failureOf(h.provider().complete(ask()));

      expect(error.kind).toBe("bad_request");
      expect(error.message).toBe(
        'The model provider refused the request (HTTP 404) with a web page titled "404 Not Found" instead of an API error. Check that OPENAI_BASE_URL points to an OpenAI-compatible API (it usually ends in /v1).',
      );
    });

    it("answers a 502 HTML page from a proxy as a server error, after retrying", async () => {
      fake.setResponder(() => ({
        status: 502,
        contentType: "text/html",
        errorBody:
          "<html><head><title>502 Bad Gateway</title></head><body>bad gateway</body></html>",
      }));

      const error = await failureOf(h.provider({ maxRetries: 1 }).complete(ask()));

      expect(error.message).toBe(
        "The model provider had a server error (HTTP 502). Try again in a few minutes.",
      );
      expect(fake.requests).toHaveLength(2);
    });

    it("keeps a huge plain-text error body out of the answer", async () => {
      fake.script({ status: 400, errorBody: `bad request: ${"z".repeat(5_000_000)}` });

      const error = await failureOf(h.provider().complete(ask()));

      expect(error.kind).toBe("bad_request");
      expect(error.message.length).toBeLessThan(600);
      expect(error.message).toMatch(
        /^The model provider refused the request \(HTTP 400\): bad request: z+…$/,
      );
    });
  });

  it("turns any stream at all into a reply or a ProviderError, within the caps", async () => {
    const limits = { maxAnswerChars: 1_000, maxToolCallChars: 1_000, maxToolCalls: 4 };
    const provider = h.provider({ maxRetries: 0, limits });
    const delta = fc.record(
      {
        content: fc.oneof(fc.string({ maxLength: 400 }), fc.jsonValue()),
        refusal: fc.string({ maxLength: 50 }),
        tool_calls: fc.oneof(
          fc.array(
            fc.record(
              {
                index: fc.oneof(fc.nat(6), fc.jsonValue()),
                id: fc.oneof(fc.string({ maxLength: 6 }), fc.jsonValue()),
                function: fc.record(
                  { name: fc.string({ maxLength: 8 }), arguments: fc.string({ maxLength: 600 }) },
                  { requiredKeys: [] },
                ),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 3 },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    const line = fc.oneof(
      fc
        .tuple(delta, fc.constantFrom(null, "stop", "tool_calls", "length", 7))
        .map(([d, f]) => chunk(d, f as string | null)),
      fc.jsonValue().map((value) => event(value)),
      fc.string({ maxLength: 80 }).map((text) => `data: ${text}\n\n`),
      fc.string({ maxLength: 80 }),
      fc.constant(": keep-alive\n\n"),
      fc.constant(event("[DONE]")),
      fc.constant(event({ error: { message: "boom" } })),
    );

    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), async (body) => {
        fake.script({ body });
        const outcome = await provider.complete(ask()).then(
          (reply) => reply,
          (error: unknown) => error,
        );
        if (outcome instanceof ProviderError) {
          expect(outcome.message.length).toBeGreaterThan(0);
          return;
        }
        expect(outcome).not.toBeInstanceOf(Error);
        const reply = outcome as Awaited<ReturnType<typeof provider.complete>>;
        expect(typeof reply.finishReason).toBe("string");
        expect(reply.content === null || typeof reply.content === "string").toBe(true);
        expect((reply.content ?? "").length).toBeLessThanOrEqual(limits.maxAnswerChars + 200);
        expect(reply.toolCalls.length).toBeLessThanOrEqual(limits.maxToolCalls);
        for (const call of reply.toolCalls) {
          expect(typeof call.id).toBe("string");
          expect(call.function.arguments.length).toBeLessThanOrEqual(limits.maxToolCallChars);
        }
      }),
      { numRuns: 150 },
    );
  });
});
