import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/agent/inbound.ts";
import { createStore } from "../../src/store/index.ts";
import { Inbox } from "../../src/workers/inbox.ts";
import { ConversationQueue } from "../../src/workers/queue.ts";
import { type FakeOpenAI, type RecordedRequest, startFakeOpenAI } from "../fakes/openai-server.ts";
import { type FakeCollector, startFakeCollector } from "../fakes/otlp-collector.ts";
import { until } from "../support/channels.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { startTestTracing, type TestTracing } from "../support/tracing.ts";
import {
  firstPosts,
  killLeaseHolder,
  startWorkerProcess,
  type WorkerProcess,
} from "../support/workers.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "traced-crash",
};

describe("traces of a turn resumed after its worker was killed", () => {
  let fake: FakeOpenAI;
  let collector: FakeCollector;
  let tracing: TestTracing;
  let redis: Redis;
  const prefix = uniquePrefix("tcrash");
  const workers: WorkerProcess[] = [];
  let afterTool = 0;

  beforeAll(async () => {
    tracing = startTestTracing();
    collector = await startFakeCollector();
    fake = await startFakeOpenAI({
      responder: (request: RecordedRequest) => {
        if (request.body.messages.at(-1).role === "user") {
          return {
            toolCalls: [{ id: "call_time", name: "current_time", arguments: { timeZone: "UTC" } }],
          };
        }
        afterTool++;
        return afterTool === 1
          ? { content: "too late", delayMs: 60_000 }
          : { content: "It is time." };
      },
    });
    redis = connectRedis({ maxRetriesPerRequest: null });
    // Real worker processes, set up by `switchyard start` from the standard variables.
    const env = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
      SWITCHYARD_LEASE_MS: "1500",
      SWITCHYARD_LOCK_MS: "1500",
      SWITCHYARD_STALLED_INTERVAL_MS: "500",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "switchyard-worker",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    };
    workers.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await deleteKeysUnder(redis, prefix);
    redis?.disconnect();
    await fake?.close();
    await collector?.close();
    await tracing?.stop();
  });

  it("starts a trace of its own that links to the message's trace", async () => {
    const keys = createStore(redis, { prefix }).keys;
    const queue = new ConversationQueue(new Inbox(redis, keys), { prefix });
    await queue.enqueue({
      ...address,
      user: "u",
      text: "what time is it?",
      attachments: [],
      eventId: "e1",
      time: Date.now(),
    });
    await queue.close();
    const enqueue = tracing.spans().find((span) => span.name === "switchyard.enqueue");
    expect(enqueue).toBeDefined();
    const message = enqueue?.spanContext();

    await until(() => (afterTool >= 1 ? true : undefined), 20_000);
    await killLeaseHolder(redis, `${keys.conversationTag(address)}:lease`, workers);
    expect((await firstPosts(redis, prefix)).map((p) => p.text)).toEqual(["It is time."]);

    const turn = await until(
      () => collector.spans.find((span) => span.name === "switchyard.turn"),
      20_000,
    );
    expect(turn.service).toBe("switchyard-worker");
    expect(turn.attributes["switchyard.turn.resumed"]).toBe(true);
    expect(turn.parentSpanId).toBeUndefined();
    expect(turn.traceId).not.toBe(message?.traceId);
    expect(turn.links).toEqual([
      {
        traceId: message?.traceId,
        spanId: message?.spanId,
        attributes: { "switchyard.link": "resumes" },
      },
    ]);
    // The crashed run's turn never ended, so only the resumed one was exported; its
    // model request and delivery are in its own trace.
    const own = await until(() => {
      const spans = collector.spans.filter((span) => span.traceId === turn.traceId);
      return spans.some((span) => span.name === "switchyard.deliver") ? spans : undefined;
    });
    expect(own.map((span) => span.name)).toContain("switchyard.model.request");
    expect(collector.spans.filter((span) => span.name === "switchyard.turn")).toHaveLength(1);
  }, 60_000);
});
