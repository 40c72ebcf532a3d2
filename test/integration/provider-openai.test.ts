import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { createGzip } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import { ProviderError, type ProviderRequest } from "../../src/core/agent/provider.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import {
  createOpenAIProvider,
  type OpenAIProviderOptions,
  UNCONFIGURED_MESSAGE,
  unconfiguredProvider,
} from "../../src/providers/openai.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";

const API_KEY = "sk-switchyard-test-SECRET-0123456789";

const weather = defineTool({
  id: "get_weather",
  description: "Current weather for a city.",
  parameters: z.object({ city: z.string(), units: z.enum(["metric", "imperial"]).optional() }),
  execute: () => "sunny",
});
const search = defineTool({
  id: "web_search",
  description: "Searches the web.",
  parameters: z.object({ query: z.string(), limit: z.number().int().optional() }),
  execute: () => "nothing",
});
/** The contract's bytes, built the way freezeTurn joins them. */
const TOOLS = `[${weather.wire},${search.wire}]`;

const history: ChatMessage[] = [
  { role: "user", content: "What's the weather in Paris?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: "sunny" },
  { role: "user", content: "And in Rome?" },
];

function ask(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    system: "You are Switchyard, a helpful bot.",
    tools: TOOLS,
    messages: [{ role: "user", content: "hi" }],
    cacheKey: "slack:T1:C1:1700000000.0001",
    ...overrides,
  };
}

interface Harness {
  sleeps: number[];
  warnings: { message: string; fields?: Readonly<Record<string, unknown>> }[];
  logger: LoggerPort;
}

function harness(): Harness {
  const h: Harness = { sleeps: [], warnings: [], logger: { warn: () => {} } };
  h.logger = { warn: (message, fields) => void h.warnings.push({ message, fields }) };
  return h;
}

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => {
      throw new Error("expected the provider to fail");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/** A port nothing listens on: bound, read, and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A local HTTP server answering with `handler`: its base URL (`/v1`), and how to close it. */
async function serving(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("createOpenAIProvider", () => {
  let fake: FakeOpenAI;
  let h: Harness;

  const provider = (options: Partial<OpenAIProviderOptions> = {}) =>
    createOpenAIProvider({
      apiKey: API_KEY,
      baseURL: fake.url,
      model: "gpt-test",
      logger: h.logger,
      sleep: async (ms) => void h.sleeps.push(ms),
      ...options,
    });

  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: API_KEY });
    h = harness();
  });

  afterEach(async () => {
    await fake.close();
    expect(JSON.stringify(h.warnings)).not.toContain(API_KEY);
  });

  describe("streaming", () => {
    it("reads a reply the server compressed though it was not asked to, as fetch did", async () => {
      const event = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      // A proxy that gzips the stream, flushing after every event as a streaming proxy does.
      const zipping = await serving((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
        const gzip = createGzip();
        gzip.pipe(res);
        for (const text of [
          event({ role: "assistant", content: "Zipped" }),
          event({ content: " answer." }),
          event({}, "stop"),
          "data: [DONE]\n\n",
        ]) {
          gzip.write(text);
          gzip.flush();
        }
        gzip.end();
      });
      try {
        const reply = await provider({ baseURL: zipping.baseURL }).complete(ask());

        expect(reply.content).toBe("Zipped answer.");
        expect(reply.finishReason).toBe("stop");
      } finally {
        await zipping.close();
      }
    });

    it("follows a base URL that redirects, as fetch did (a local server sent on elsewhere)", async () => {
      // A local model server that needs no key (fetch drops the key on a redirect to another origin).
      const open = await startFakeOpenAI();
      open.script({ content: "Redirected, and still streamed." });
      // A server that sends every request on with a 307, which keeps the method and the body.
      const moved = await serving((req, res) => {
        res.writeHead(307, { location: `${open.url}${req.url?.replace(/^\/v1/, "") ?? ""}` });
        res.end();
      });
      try {
        const reply = await provider({ baseURL: moved.baseURL }).complete(ask());

        expect(reply.content).toBe("Redirected, and still streamed.");
        expect(open.requests).toHaveLength(1);
      } finally {
        await moved.close();
        await open.close();
      }
    });

    it("streams text and calls onText with growing prefixes of the final text", async () => {
      fake.script({ content: "The quick brown fox jumps over the lazy dog." });
      const seen: string[] = [];

      const reply = await provider().complete(ask({ onText: (soFar) => seen.push(soFar) }));

      expect(reply.content).toBe("The quick brown fox jumps over the lazy dog.");
      expect(reply.toolCalls).toEqual([]);
      expect(reply.finishReason).toBe("stop");
      expect(seen.length).toBeGreaterThan(3);
      for (const [i, text] of seen.entries()) {
        expect(reply.content?.startsWith(text)).toBe(true);
        if (i > 0) expect(text.length).toBeGreaterThan(seen[i - 1]?.length ?? 0);
      }
      expect(seen.at(-1)).toBe(reply.content);
    });

    it("assembles two parallel tool calls from streamed pieces, in index order", async () => {
      fake.script({
        toolCalls: [
          { id: "call_paris", name: "get_weather", arguments: { city: "Paris", units: "metric" } },
          {
            id: "call_news",
            name: "web_search",
            arguments: { query: "weather news in Europe today" },
          },
        ],
      });
      const seen: string[] = [];

      const reply = await provider().complete(ask({ onText: (soFar) => seen.push(soFar) }));

      expect(reply.content).toBeNull();
      expect(reply.finishReason).toBe("tool_calls");
      expect(reply.toolCalls).toEqual([
        {
          id: "call_paris",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris","units":"metric"}' },
        },
        {
          id: "call_news",
          type: "function",
          function: { name: "web_search", arguments: '{"query":"weather news in Europe today"}' },
        },
      ]);
      expect(seen).toEqual([]);
    });

    it("returns text and tool calls of one reply together", async () => {
      fake.script({
        content: "Let me check.",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Rome" } }],
      });

      const reply = await provider().complete(ask());

      expect(reply.content).toBe("Let me check.");
      expect(reply.toolCalls.map((c) => c.function.arguments)).toEqual(['{"city":"Rome"}']);
    });

    it("reports usage with cached prompt tokens", async () => {
      fake.script({
        content: "ok",
        usage: { prompt_tokens: 2_400, completion_tokens: 12, cached_tokens: 2_048 },
      });

      const reply = await provider().complete(ask());

      expect(reply.usage).toEqual({
        promptTokens: 2_400,
        completionTokens: 12,
        cachedTokens: 2_048,
      });
    });

    it("keeps the reply when a live text update throws", async () => {
      fake.script({ content: "still here" });

      const reply = await provider().complete(
        ask({
          onText: () => {
            throw new Error("edit failed");
          },
        }),
      );

      expect(reply.content).toBe("still here");
      expect(h.warnings[0]?.message).toMatch(/streams failed/);
    });
  });

  describe("the request", () => {
    it("sends the system prompt first, the history as given, the cache key and streaming options", async () => {
      fake.script({ content: "Sunny too." });

      await provider({ temperature: 0.2 }).complete(ask({ messages: history }));

      const body = fake.requests[0]?.body;
      expect(body.model).toBe("gpt-test");
      expect(body.messages).toEqual([
        { role: "system", content: "You are Switchyard, a helpful bot." },
        ...history,
      ]);
      expect(body.prompt_cache_key).toBe("slack:T1:C1:1700000000.0001");
      expect(body.stream).toBe(true);
      expect(body.stream_options).toEqual({ include_usage: true });
      expect(body.parallel_tool_calls).toBe(true);
      expect(body.temperature).toBe(0.2);
      expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    });

    it("sends the contract's tools array byte for byte", async () => {
      fake.script({ content: "ok" }, { content: "ok" });
      const openai = provider();

      await openai.complete(ask());
      await openai.complete(ask());

      for (const request of fake.requests) {
        expect(JSON.stringify(request.body.tools)).toBe(TOOLS);
        expect(request.rawBody).toContain(`"tools":${TOOLS}`);
      }
      expect(h.warnings).toEqual([]);
    });

    it("omits tools and parallel_tool_calls when the contract has no tools", async () => {
      fake.script({ content: "ok" });

      await provider().complete(ask({ tools: "[]" }));

      expect(fake.requests[0]?.body).not.toHaveProperty("tools");
      expect(fake.requests[0]?.body).not.toHaveProperty("parallel_tool_calls");
      expect(fake.requests[0]?.body).not.toHaveProperty("temperature");
    });

    it("warns when the tools bytes cannot survive a JSON round trip", async () => {
      fake.script({ content: "ok" });
      // Canonical order puts "10" before "2"; a parsed object puts integer keys in numeric order.
      const odd =
        '[{"function":{"name":"pick","parameters":{"properties":{"10":{},"2":{}}}},"type":"function"}]';

      await provider().complete(ask({ tools: odd }));

      expect(h.warnings.map((w) => w.message)).toEqual([
        expect.stringMatching(/prompt cache may miss/),
      ]);
    });
  });

  describe("retries", () => {
    it("retries a 429 after the delay retry-after advertises, then succeeds", async () => {
      fake.script({ status: 429, headers: { "retry-after": "2" } }, { content: "made it" });

      const reply = await provider().complete(ask());

      expect(reply.content).toBe("made it");
      expect(fake.requests).toHaveLength(2);
      expect(h.sleeps).toEqual([2_000]);
      expect(h.warnings[0]?.fields).toMatchObject({
        kind: "rate_limit",
        status: 429,
        delayMs: 2_000,
      });
    });

    it("prefers retry-after-ms and caps an advertised delay at a minute", async () => {
      fake.script(
        { status: 429, headers: { "retry-after-ms": "750", "retry-after": "1" } },
        { status: 429, headers: { "retry-after": "3600" } },
        { content: "ok" },
      );

      await provider().complete(ask());

      expect(h.sleeps).toEqual([750, 60_000]);
    });

    it("retries a 500 with a jittered backoff, then succeeds", async () => {
      fake.script({ status: 500 }, { content: "recovered" });

      const reply = await provider().complete(ask());

      expect(reply.content).toBe("recovered");
      expect(fake.requests).toHaveLength(2);
      expect(h.sleeps).toHaveLength(1);
      expect(h.sleeps[0]).toBeGreaterThanOrEqual(250);
      expect(h.sleeps[0]).toBeLessThanOrEqual(500);
    });

    it("gives up on a persistent 503 with kind server after maxRetries + 1 attempts", async () => {
      fake.setResponder(() => ({ status: 503 }));

      const error = await failureOf(provider({ maxRetries: 3 }).complete(ask()));

      expect(error.kind).toBe("server");
      expect(error.status).toBe(503);
      expect(error.message).toMatch(/server error \(HTTP 503\)/);
      expect(fake.requests).toHaveLength(4);
      expect(h.sleeps).toHaveLength(3);
      // Each wait is jittered within [ceiling / 2, ceiling], the ceiling doubling from 500 ms.
      h.sleeps.forEach((ms, i) => {
        expect(ms).toBeGreaterThanOrEqual(250 * 2 ** i);
        expect(ms).toBeLessThanOrEqual(500 * 2 ** i);
      });
    });

    it("tries five times by default", async () => {
      fake.setResponder(() => ({ status: 502 }));

      await failureOf(provider().complete(ask()));

      expect(fake.requests).toHaveLength(5);
    });

    it("ends a persistent 429 in kind rate_limit with a plain message", async () => {
      fake.setResponder(() => ({ status: 429, headers: { "retry-after": "1" } }));

      const error = await failureOf(provider({ maxRetries: 2 }).complete(ask()));

      expect(error.kind).toBe("rate_limit");
      expect(error.message).toBe(
        "The model provider is rate-limiting requests; try again in a minute.",
      );
      expect(fake.requests).toHaveLength(3);
      expect(h.sleeps).toEqual([1_000, 1_000]);
    });

    it("does not retry a 429 that means the account is out of quota", async () => {
      fake.script({
        status: 429,
        errorBody: {
          error: {
            message: "You exceeded your current quota.",
            type: "insufficient_quota",
            code: "insufficient_quota",
          },
        },
      });

      const error = await failureOf(provider().complete(ask()));

      expect(error.kind).toBe("rate_limit");
      expect(error.message).toMatch(/out of quota or credits/);
      expect(fake.requests).toHaveLength(1);
    });

    it("does not retry once text has been shown, even if the connection then breaks", async () => {
      fake.script({ content: "one two three four five six", chunkDelayMs: 30 });
      const seen: string[] = [];

      const error = await failureOf(
        provider().complete(
          ask({
            onText: (soFar) => {
              seen.push(soFar);
              if (seen.length === 1) void fake.close();
            },
          }),
        ),
      );

      expect(error.kind).toBe("network");
      expect(error.message).toMatch(/broke in the middle of a reply/);
      expect(h.sleeps).toEqual([]);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe("errors", () => {
    it("maps 401 to kind auth without retrying or repeating the key", async () => {
      const wrongKey = "sk-wrong-key-that-must-not-leak-42";

      const error = await failureOf(provider({ apiKey: wrongKey }).complete(ask()));

      expect(error.kind).toBe("auth");
      expect(error.status).toBe(401);
      expect(error.message).toBe("The model provider rejected the API key. Check OPENAI_API_KEY.");
      expect(fake.requests).toHaveLength(1);
      expect(h.sleeps).toEqual([]);
      expect(`${error.message} ${error.stack}`).not.toContain(wrongKey);
    });

    it("maps 403 to kind auth", async () => {
      fake.script({ status: 403 });

      const error = await failureOf(provider().complete(ask()));

      expect(error.kind).toBe("auth");
      expect(fake.requests).toHaveLength(1);
    });

    it("maps 400 to kind bad_request carrying the server's message, without retrying", async () => {
      fake.script({
        status: 400,
        errorBody: {
          error: {
            message: "An assistant message with 'tool_calls' must be followed by tool messages.",
            type: "invalid_request_error",
            param: "messages",
            code: null,
          },
        },
      });

      const error = await failureOf(provider().complete(ask()));

      expect(error.kind).toBe("bad_request");
      expect(error.status).toBe(400);
      expect(error.message).toBe(
        "The model provider refused the request (HTTP 400): An assistant message with 'tool_calls' must be followed by tool messages.",
      );
      expect(fake.requests).toHaveLength(1);
    });

    it("keeps a non-JSON error body readable", async () => {
      fake.script({ status: 404, errorBody: "model gpt-test not found" });

      const error = await failureOf(provider().complete(ask()));

      expect(error.kind).toBe("bad_request");
      expect(error.message).toBe(
        "The model provider refused the request (HTTP 404): model gpt-test not found",
      );
    });

    it("never repeats the API key, even when the server echoes it", async () => {
      fake.script({
        status: 400,
        errorBody: { error: { message: `Key ${API_KEY} may not use model gpt-test.` } },
      });

      const error = await failureOf(provider().complete(ask()));

      expect(error.message).not.toContain(API_KEY);
      expect(error.message).toContain("Key [redacted] may not use model gpt-test.");
    });

    it("maps a refused connection to kind network naming the base URL, after retrying", async () => {
      const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;

      const error = await failureOf(provider({ baseURL, maxRetries: 2 }).complete(ask()));

      expect(error.kind).toBe("network");
      expect(error.message).toBe(
        `Could not reach the model provider at ${baseURL}. Check OPENAI_BASE_URL.`,
      );
      expect(error.message).not.toContain(API_KEY);
      expect(h.sleeps).toHaveLength(2);
    });

    it("leaves credentials in the base URL out of messages", async () => {
      const port = await closedPort();

      const error = await failureOf(
        provider({
          baseURL: `http://user:hunter2@127.0.0.1:${port}/v1?token=abc`,
          maxRetries: 0,
        }).complete(ask()),
      );

      expect(error.message).toBe(
        `Could not reach the model provider at http://127.0.0.1:${port}/v1. Check OPENAI_BASE_URL.`,
      );
    });

    it("maps a server that never answers to kind timeout once the deprecated timeoutMs passes", async () => {
      fake.script({ delayMs: 5_000, content: "too late" });

      const error = await failureOf(provider({ timeoutMs: 200 }).complete(ask()));

      expect(error.kind).toBe("timeout");
      expect(error.message).toMatch(/did not start its reply within 200 ms/);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe("cancellation", () => {
    it("ends in kind aborted when the signal aborts mid-stream", async () => {
      fake.script({ content: "a long answer that streams slowly word by word", chunkDelayMs: 50 });
      const controller = new AbortController();
      const seen: string[] = [];

      const error = await failureOf(
        provider().complete(
          ask({
            signal: controller.signal,
            onText: (soFar) => {
              seen.push(soFar);
              if (seen.length === 2) controller.abort();
            },
          }),
        ),
      );

      expect(error.kind).toBe("aborted");
      expect(seen).toHaveLength(2);
      expect(h.sleeps).toEqual([]);
    });

    it("ends in kind aborted when the signal aborts before the response starts", async () => {
      const controller = new AbortController();
      // Aborted once the server holds the request, before it answers a byte.
      fake.setResponder(() => {
        controller.abort();
        return { delayMs: 5_000, content: "never" };
      });

      const error = await failureOf(provider().complete(ask({ signal: controller.signal })));

      expect(error.kind).toBe("aborted");
      expect(fake.requests).toHaveLength(1);
    });

    it("stops waiting for a retry when the signal aborts during the backoff", async () => {
      fake.setResponder(() => ({ status: 503 }));
      const controller = new AbortController();

      const error = await failureOf(
        provider({
          sleep: (ms) => {
            h.sleeps.push(ms);
            controller.abort();
            return new Promise(() => {});
          },
        }).complete(ask({ signal: controller.signal })),
      );

      expect(error.kind).toBe("aborted");
      expect(fake.requests).toHaveLength(1);
    });

    it("does not send a request whose signal is already aborted", async () => {
      const error = await failureOf(provider().complete(ask({ signal: AbortSignal.abort() })));

      expect(error.kind).toBe("aborted");
      expect(fake.requests).toHaveLength(0);
    });
  });
});

describe("unconfiguredProvider", () => {
  it("answers every request with how to configure a model", async () => {
    const error = await failureOf(unconfiguredProvider().complete(ask()));

    expect(error.kind).toBe("unconfigured");
    expect(error.message).toBe(UNCONFIGURED_MESSAGE);
    expect(UNCONFIGURED_MESSAGE).toBe(
      "No model is configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) and SWITCHYARD_MODEL, or ANTHROPIC_API_KEY for Claude, then restart.",
    );
  });
});
