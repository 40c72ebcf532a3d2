import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { conversationKey } from "../../src/core/conversation.ts";
import { createBot, createLogger, createOpenAIProvider } from "../../src/index.ts";
import { hashedKey, setCaptureContent } from "../../src/observability/tracing.ts";
import { startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { MemoryChat, memoryChannel } from "../contract/memory-channel.ts";
import { until } from "../support/channels.ts";
import { lookupTool, PIPELINE_API_KEY, type Pipeline, startPipeline } from "../support/pipeline.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";
import {
  everythingSaid,
  httpSpans,
  parentOf,
  redisSpans,
  startTestTracing,
  switchyardSpans,
  type TestTracing,
  traceTree,
} from "../support/tracing.ts";

let tracing: TestTracing;
let pipe: Pipeline | undefined;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
  tracing.exporter.reset();
});

const SECRET_TEXT = "my passport number is X1234567";
const SECRET_WORD = "zanzibar-7731";
const ANSWER = "A lease is a time-limited lock, Alice.";

function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  expect(found, `one ${name} span`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

function id(span: ReadableSpan): string {
  return span.spanContext().spanId;
}

/** Runs one message with a tool call and waits until its trace has ended. */
async function traceOneMessage(): Promise<ReadableSpan[]> {
  pipe = await startPipeline();
  pipe.fake.script(
    {
      toolCalls: [{ id: "call_1", name: "lookup", arguments: { word: SECRET_WORD } }],
      usage: { cached_tokens: 12 },
    },
    { content: ANSWER },
  );
  await pipe.app.queue.enqueue(pipe.message(SECRET_TEXT));
  await pipe.posts(1);
  return until(() => {
    const spans = tracing.spans();
    return named(spans, "switchyard.turn").length > 0 ? spans : undefined;
  });
}

describe("traces of a message", () => {
  it("makes one connected trace from ingress to delivery, across the queue", async () => {
    const spans = await traceOneMessage();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);

    const ingress = only(spans, "switchyard.ingress");
    const enqueue = only(spans, "switchyard.enqueue");
    const wait = only(spans, "switchyard.queue.wait");
    const turn = only(spans, "switchyard.turn");
    const models = named(spans, "switchyard.model.request");
    const tool = only(spans, "switchyard.tool.call");
    const deliver = only(spans, "switchyard.deliver");
    expect(parentOf(ingress)).toBeUndefined();
    expect(parentOf(enqueue)).toBe(id(ingress));
    // The worker knows the enqueue span only from the context the message carried through Redis.
    expect(parentOf(wait)).toBe(id(enqueue));
    expect(parentOf(turn)).toBe(id(enqueue));
    expect(models).toHaveLength(2);
    for (const span of [...models, tool, deliver]) expect(parentOf(span)).toBe(id(turn));
    expect(traceTree(switchyardSpans(spans))).toBe(
      [
        "switchyard.ingress",
        "  switchyard.enqueue",
        "    switchyard.queue.wait",
        "    switchyard.turn",
        "      switchyard.model.request",
        "      switchyard.tool.call",
        "      switchyard.model.request",
        "      switchyard.deliver",
      ].join("\n"),
    );
  });

  it("records the Redis commands and the model's HTTP requests as client spans under ours", async () => {
    const spans = await traceOneMessage();
    const ours = new Map(switchyardSpans(spans).map((span) => [id(span), span.name]));
    const redis = redisSpans(spans);
    // Each one is a child of a Switchyard span: nothing hangs loose, nothing starts a trace.
    for (const span of [...redis, ...httpSpans(spans)]) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(ours.has(parentOf(span) ?? "")).toBe(true);
    }
    const byId = new Map(spans.map((span) => [id(span), span]));
    const within = (span: ReadableSpan, name: string): boolean => {
      const parent = byId.get(parentOf(span) ?? "");
      return parent !== undefined && (parent.name === name || within(parent, name));
    };
    // The inbox write at ingress, and on the worker the turn's own writes (the outbox at delivery).
    expect(
      redis.filter((span) => parentOf(span) === id(only(spans, "switchyard.enqueue"))),
    ).not.toEqual([]);
    expect(redis.filter((span) => within(span, "switchyard.turn"))).not.toEqual([]);
    for (const span of redis) expect(span.attributes["db.query.text"]).toBe(span.name);

    const models = named(spans, "switchyard.model.request");
    for (const model of models) {
      const [post, ...more] = httpSpans(spans).filter((span) => parentOf(span) === id(model));
      expect(more).toEqual([]);
      expect(post?.attributes).toMatchObject({
        "http.request.method": "POST",
        "url.path": "/v1/chat/completions",
        "http.response.status_code": 200,
      });
    }
  });

  it("names the turn, each model request, the tool call and the delivery", async () => {
    const spans = await traceOneMessage();
    const key = conversationKey(pipe?.message("") ?? ({} as never));
    const turn = only(spans, "switchyard.turn");
    expect(turn.attributes).toMatchObject({
      "switchyard.platform": "console",
      "switchyard.conversation.hash": hashedKey(key),
      "switchyard.queue.mode": "collect",
      "switchyard.turn.resumed": false,
      "switchyard.turn.steps": 2,
      "switchyard.turn.outcome": "answer",
      "gen_ai.usage.cache_read.input_tokens": 12,
    });
    expect(turn.attributes["switchyard.contract.hash"]).toMatch(/^[0-9a-f]{16,}$/);

    const [first, second] = named(spans, "switchyard.model.request");
    expect(first?.attributes).toMatchObject({
      "gen_ai.request.model": "fake-model",
      "gen_ai.usage.cache_read.input_tokens": 12,
      "switchyard.model.tool_calls": 1,
    });
    for (const model of [first, second]) {
      expect(model?.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(model?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(model?.attributes["switchyard.model.time_to_first_token_ms"]).toBeGreaterThanOrEqual(
        0,
      );
    }
    expect(only(spans, "switchyard.tool.call").attributes).toEqual({
      "gen_ai.tool.name": "lookup",
      "switchyard.tool.outcome": "ok",
    });
    expect(only(spans, "switchyard.deliver").attributes).toMatchObject({
      "switchyard.platform": "console",
      "switchyard.delivery.parts": 1,
      "switchyard.delivery.edits": 0,
    });
  });

  it("puts no message text, answer, tool argument, API key or platform id in any span", async () => {
    const spans = await traceOneMessage();
    const enqueue = id(only(spans, "switchyard.enqueue"));
    // The inbox write, whose arguments are the message: the span is there, the text is not.
    expect(redisSpans(spans).filter((span) => parentOf(span) === enqueue).length).toBeGreaterThan(
      0,
    );
    const text = everythingSaid(spans);
    const secrets = [SECRET_TEXT, "X1234567", SECRET_WORD, ANSWER, "glossary", "alice"];
    for (const secret of [...secrets, PIPELINE_API_KEY]) {
      expect(text).not.toContain(secret);
    }
    // The conversation's platform ids appear only hashed.
    expect(text).not.toContain("terminal");
    expect(text).not.toContain("console:local");
  });

  it("adds tool arguments and results only with capture_content", async () => {
    setCaptureContent(true);
    try {
      const spans = await traceOneMessage();
      expect(only(spans, "switchyard.tool.call").attributes).toMatchObject({
        "switchyard.tool.arguments": JSON.stringify({ word: SECRET_WORD }),
        "switchyard.tool.result": `glossary: ${SECRET_WORD} means something`,
      });
      // Redis commands show their arguments then (the inbox write carries the message).
      expect(JSON.stringify(redisSpans(spans).map((span) => span.attributes))).toContain(
        SECRET_TEXT,
      );
      // Answers in Switchyard's spans stay out even then.
      const text = JSON.stringify(switchyardSpans(spans).map((span) => span.attributes));
      expect(text).not.toContain(SECRET_TEXT);
      expect(text).not.toContain(ANSWER);
    } finally {
      setCaptureContent(false);
    }
  });
});

describe("traces of a message a channel takes", () => {
  /** The in-memory fourth platform as a bot author runs it, on the shared Redis and the fake model. */
  async function memoryBot() {
    const model = await startFakeOpenAI();
    const prefix = uniquePrefix("tracing-channel");
    const chat = new MemoryChat({ admins: [] });
    const bot = createBot({
      channels: [memoryChannel({ chat })],
      tools: [lookupTool],
      builtins: [],
      provider: createOpenAIProvider({ apiKey: "test", baseURL: model.url, model: "fake-model" }),
      env: redisEnv(),
      prefix,
      queue: { debounceMs: 0 },
      logger: createLogger({ level: "silent" }),
      processGuard: false,
    });
    await bot.start();
    const close = async () => {
      await bot.stop();
      await model.close();
      const redis = connectRedis();
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    };
    return { model, chat, close };
  }

  it("starts at the channel: the gate and commands are inside ingress, and its outcome says what became of it", async () => {
    const bot = await memoryBot();
    try {
      bot.model.script({ content: "hello back" });
      await bot.chat.say("alice", "general", "hello");
      await until(() => (bot.chat.botMessages("general").length > 0 ? true : undefined));
      await bot.chat.say("alice", "general", "/tools");
      await until(() => (bot.chat.botMessages("general").length > 1 ? true : undefined));
      const spans = await until(() => {
        const found = tracing.spans();
        return named(found, "switchyard.ingress").length === 2 &&
          named(found, "switchyard.turn").length === 1
          ? found
          : undefined;
      });
      const [queued, answered] = named(spans, "switchyard.ingress").sort(
        (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
      ) as [ReadableSpan, ReadableSpan];
      expect(queued.attributes["switchyard.ingress.outcome"]).toBe("queued");
      expect(queued.attributes["switchyard.platform"]).toBe("memory");
      expect(parentOf(only(spans, "switchyard.enqueue"))).toBe(id(queued));
      expect(parentOf(only(spans, "switchyard.turn"))).toBe(id(only(spans, "switchyard.enqueue")));
      // A command is answered inside its ingress span and never reaches the queue.
      expect(answered.attributes["switchyard.ingress.outcome"]).toBe("answered");
      const underAnswered = switchyardSpans(spans).filter(
        (span) => parentOf(span) === id(answered),
      );
      expect(underAnswered).toEqual([]);
    } finally {
      await bot.close();
    }
  });
});
