import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/agent/inbound.ts";
import { createStore } from "../../src/store/index.ts";
import { Inbox } from "../../src/workers/inbox.ts";
import { ConversationQueue } from "../../src/workers/queue.ts";
import { type FakeOpenAI, type RecordedRequest, startFakeOpenAI } from "../fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
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
  conversation: "crash",
};

describe("a worker killed mid-turn", () => {
  let fake: FakeOpenAI;
  let redis: Redis;
  const prefix = uniquePrefix("crash");
  const workers: WorkerProcess[] = [];
  let afterTool = 0;

  beforeAll(async () => {
    // Step 1 calls a tool. The first request after the tool result hangs (the worker is
    // killed while it waits); a resumed turn's request gets the answer.
    fake = await startFakeOpenAI({
      responder: (request: RecordedRequest) => {
        const last = request.body.messages.at(-1);
        if (last.role === "user") {
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
    const env = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
      SWITCHYARD_LEASE_MS: "1500",
      SWITCHYARD_LOCK_MS: "1500",
      SWITCHYARD_STALLED_INTERVAL_MS: "500",
    };
    workers.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await deleteKeysUnder(redis, prefix);
    redis?.disconnect();
    await fake?.close();
  });

  it("resumes on another worker from its checkpoint and answers exactly once", async () => {
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

    // Wait until the turn is past its tool call and waiting on the model.
    const deadline = Date.now() + 20_000;
    while (afterTool < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(afterTool).toBe(1);
    await killLeaseHolder(redis, `${keys.conversationTag(address)}:lease`, workers);
    await firstPosts(redis, prefix);
    // A second answer would come from the worker that was killed or a duplicate resume: give it time.
    await new Promise((r) => setTimeout(r, 2_000));
    const posts = await firstPosts(redis, prefix);
    expect(posts.map((p) => p.text)).toEqual(["It is time."]);

    // The model was not asked the first step again, and history holds the call with its result once.
    const firstStep = fake.requests.filter((r) => r.body.messages.at(-1).role === "user");
    expect(firstStep).toHaveLength(1);
    const history = await createStore(redis, { prefix }).history.load(address);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(history[2]).toMatchObject({ role: "tool", tool_call_id: "call_time" });
    expect(await new Inbox(redis, keys).idle(address)).toBe(true);
  }, 60_000);
});
