import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore } from "../../src/store/index.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { basicAuth, CONSOLE_TOKEN } from "../support/console.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { freePort } from "../support/switchyard-process.ts";
import { firstPosts, startWorkerProcess, type WorkerProcess } from "../support/workers.ts";

describe("switchyard start with console.enabled", () => {
  let fake: FakeOpenAI;
  let redis: Redis;
  let worker: WorkerProcess;
  let url: string;
  let port: number;
  const prefix = uniquePrefix("cstart");
  const dir = mkdtempSync(join(tmpdir(), "sy-console-"));

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.script({ content: "Served." });
    redis = connectRedis({ maxRetriesPerRequest: null });
    const config = join(dir, "switchyard.yaml");
    writeFileSync(config, "console:\n  enabled: true\n");
    port = await freePort();
    url = `http://127.0.0.1:${port}/console`;
    worker = await startWorkerProcess({
      SWITCHYARD_PREFIX: prefix,
      SWITCHYARD_CONFIG: config,
      SWITCHYARD_METRICS_PORT: String(port),
      SWITCHYARD_CONSOLE_TOKEN: CONSOLE_TOKEN,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
    });
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await deleteKeysUnder(redis, prefix);
    redis?.disconnect();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on this machine only by default, and says at start how to open it from others", async () => {
    expect(worker.logs()).toContain(
      `console served on http://127.0.0.1:${port}/console (this machine only: set console.host or SWITCHYARD_METRICS_HOST to 0.0.0.0`,
    );
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // The machine's other addresses get no answer at all.
    const outward = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && a.family === "IPv4");
    expect(outward.length).toBeGreaterThan(0);
    for (const address of outward) {
      const reached = await fetch(`http://${address?.address}:${port}/healthz`).then(
        (r) => `answered ${r.status}`,
        (error: Error & { cause?: { code?: string } }) => error.cause?.code,
      );
      expect(reached, address?.address).toBe("ECONNREFUSED");
    }
  });

  it("serves the console behind the token and lists what its turns did", async () => {
    expect(worker.logs()).toContain("console served");
    expect((await fetch(url)).status).toBe(401);
    const keys = createStore(redis, { prefix }).keys;
    const queue = new ConversationQueue(new Inbox(redis, keys), { prefix });
    await queue.enqueue({
      platform: "console",
      workspace: "local",
      channel: "terminal",
      conversation: "ops",
      user: "u",
      text: "hello",
      attachments: [],
      eventId: "e1",
      time: Date.now(),
    });
    await queue.close();
    expect((await firstPosts(redis, prefix)).map((p) => p.text)).toEqual(["Served."]);
    // The activity is written just after delivery: look until it is there.
    let page = "";
    const deadline = Date.now() + 10_000;
    while (!page.includes("console%3Alocal%3Aterminal%3Aops") && Date.now() < deadline) {
      page = await (await fetch(url, { headers: { authorization: basicAuth() } })).text();
      if (!page.includes("console%3Alocal%3Aterminal%3Aops"))
        await new Promise((r) => setTimeout(r, 50));
    }
    expect(page).toMatch(/<td>answer<\/td><td>1<\/td>/);
  }, 60_000);
});
