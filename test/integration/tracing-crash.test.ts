import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { type FakeCollector, startFakeCollector } from "../fakes/otlp-collector.ts";
import { until } from "../support/channels.ts";
import { uniquePrefix } from "../support/redis.ts";
import { startTestTracing, type TestTracing } from "../support/tracing.ts";
import {
  type CrashWorkers,
  startCrashWorkers,
  toolThenHang,
  typedMessage,
} from "../support/worker-crash.ts";
import { firstPosts } from "../support/workers.ts";

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
  let crash: CrashWorkers;
  const model = toolThenHang("It is time.");

  beforeAll(async () => {
    tracing = startTestTracing();
    collector = await startFakeCollector();
    fake = await startFakeOpenAI({ responder: model.responder });
    // Real worker processes, set up by `switchyard start` from the standard variables.
    crash = await startCrashWorkers(fake, uniquePrefix("tcrash"), {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "switchyard-worker",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
  }, 60_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
    await collector?.close();
    await tracing?.stop();
  });

  it("starts a trace of its own that links to the message's trace", async () => {
    await crash.enqueue(typedMessage(address, "what time is it?"));
    const enqueue = tracing.spans().find((span) => span.name === "switchyard.enqueue");
    expect(enqueue).toBeDefined();
    const message = enqueue?.spanContext();

    await until(() => (model.afterTool() >= 1 ? true : undefined), 20_000);
    await crash.killLeaseHolder(address);
    expect((await firstPosts(crash.redis, crash.prefix)).map((p) => p.text)).toEqual([
      "It is time.",
    ]);

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
    // `switchyard start` runs as ESM through tsx: its Redis and HTTP instrumentations took all the same.
    expect(own.some((span) => span.attributes["db.system.name"] === "redis")).toBe(true);
    expect(own.find((span) => span.name === "POST")?.attributes["url.path"]).toBe(
      "/v1/chat/completions",
    );
    expect(collector.spans.filter((span) => span.name === "switchyard.turn")).toHaveLength(1);
  }, 60_000);
});
