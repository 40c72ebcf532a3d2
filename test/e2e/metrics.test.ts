import { afterAll, describe, expect, it } from "vitest";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { echoResponder, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { freePort } from "../support/switchyard-process.ts";
import { startWorkerProcess, type WorkerProcess } from "../support/workers.ts";

const message = (conversation: string) => ({
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation,
  user: "u",
  text: `hello from ${conversation}`,
  attachments: [],
  eventId: `e-${conversation}`,
  time: Date.now(),
});

/** Scrapes /metrics until `pattern` shows up (the gauges are looked at every few seconds). */
async function scrapeUntil(base: string, pattern: RegExp, ms = 20_000): Promise<string> {
  const deadline = Date.now() + ms;
  let text = "";
  while (Date.now() < deadline) {
    text = await (await fetch(`${base}/metrics`)).text();
    if (pattern.test(text)) return text;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`/metrics never showed ${pattern} in ${ms} ms; last scrape:\n${text}`);
}

/**
 * A worker serving /metrics on a port found free. Another test's server can
 * take that port before the worker binds it (the worker then logs "metrics
 * server not started" and runs on): that worker is stopped and another port
 * tried, so the scrapes below never reach someone else's server.
 */
async function workerServingMetrics(
  env: Record<string, string>,
): Promise<{ port: number; started: WorkerProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const started = await startWorkerProcess({ ...env, SWITCHYARD_METRICS_PORT: String(port) });
    if (!started.logs().includes("metrics server not started")) return { port, started };
    await started.stop();
    if (attempt === 3)
      throw new Error(`no free port held for the metrics server:\n${started.logs()}`);
  }
}

describe("a worker's metrics and health endpoints", () => {
  const prefix = uniquePrefix("metrics");
  const redis = connectRedis({ maxRetriesPerRequest: null });
  let worker: WorkerProcess | undefined;

  afterAll(async () => {
    await worker?.stop();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("counts turns, tool calls and tokens, and answers /healthz and /readyz", async () => {
    const fake = await startFakeOpenAI();
    fake.script(
      {
        toolCalls: [{ id: "t1", name: "current_time", arguments: {} }],
        usage: { prompt_tokens: 120, cached_tokens: 100 },
      },
      { content: "noon", usage: { prompt_tokens: 130, cached_tokens: 120, completion_tokens: 3 } },
    );
    const { port, started } = await workerServingMetrics({
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
    });
    worker = started;
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const queue = new ConversationQueue(new Inbox(redis, new KeyScheme(prefix)), { prefix });
    await queue.enqueue({
      platform: "console",
      workspace: "local",
      channel: "terminal",
      conversation: "m",
      user: "u",
      text: "time?",
      attachments: [],
      eventId: "e1",
      time: Date.now(),
    });
    await queue.close();
    let text = "";
    const deadline = Date.now() + 15_000;
    while (!/switchyard_turns_total\{[^}]*\} 1/.test(text) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      text = await (await fetch(`${base}/metrics`)).text();
    }
    expect(text).toMatch(/switchyard_turns_total\{outcome="answer"\} 1/);
    expect(text).toMatch(/switchyard_tool_calls_total\{tool="current_time",outcome="ok"\} 1/);
    expect(text).toMatch(/switchyard_prompt_tokens_total 250/);
    expect(text).toMatch(/switchyard_cached_tokens_total 220/);
    expect(text).toMatch(/switchyard_queue_wait_seconds_count 1/);
    await fake.close();
  }, 60_000);

  it("shows the turns in progress and the jobs waiting while a turn runs, and both back at 0 after", async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const fake = await startFakeOpenAI({
      responder: async (request) => {
        await gate;
        return echoResponder(request);
      },
    });
    const gaugePrefix = uniquePrefix("gauges");
    const port = await freePort();
    const busy = await startWorkerProcess({
      SWITCHYARD_PREFIX: gaugePrefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
      SWITCHYARD_METRICS_PORT: String(port),
      SWITCHYARD_CONCURRENCY: "1",
    });
    const base = `http://127.0.0.1:${port}`;
    const queue = new ConversationQueue(new Inbox(redis, new KeyScheme(gaugePrefix)), {
      prefix: gaugePrefix,
    });
    try {
      await scrapeUntil(base, /^switchyard_queue_waiting 0$/m);
      await queue.enqueue(message("first"));
      // The model holds the first turn; the one worker slot is taken, so the second job waits.
      await scrapeUntil(base, /^switchyard_turns_in_progress 1$/m);
      await queue.enqueue(message("second"));
      await scrapeUntil(base, /^switchyard_queue_waiting 1$/m);
      expect(await queue.waiting()).toBe(1);
      open();
      const after = await scrapeUntil(
        base,
        /^switchyard_turns_total\{outcome="answer"\} 2$[\s\S]*/m,
      );
      expect(after).toMatch(/^switchyard_turns_in_progress 0$/m);
      await scrapeUntil(base, /^switchyard_queue_waiting 0$/m);
    } finally {
      open();
      await queue.close();
      await busy.stop();
      await fake.close();
      await deleteKeysUnder(redis, gaugePrefix);
    }
  }, 90_000);
});
