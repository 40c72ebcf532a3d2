import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../../src/core/conversation.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { TURN_QUEUE } from "../../src/queue/shards.ts";
import { type Switchyard, startSwitchyard } from "../../src/runtime/app.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { keySlot } from "../../src/store/key-slot.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import {
  deleteKeysUnder,
  keysUnder,
  TOPOLOGY,
  testRedisFactory,
  uniquePrefix,
} from "../support/redis.ts";

/** The fake model acknowledges exactly the person's messages it has not answered yet. */
function acknowledge(request: RecordedRequest) {
  const messages = request.body.messages as { role: string; content: string }[];
  const lastAnswer = messages.map((m) => m.role).lastIndexOf("assistant");
  const fresh = messages.slice(lastAnswer + 1).filter((m) => m.role === "user");
  return { content: `ack:${fresh.map((m) => m.content).join(",")}` };
}

const CONVERSATIONS = 12;

const addresses: ConversationAddress[] = Array.from({ length: CONVERSATIONS }, (_, c) => ({
  platform: "console",
  workspace: "w",
  channel: "c",
  conversation: `conv${c}`,
}));

const message = (address: ConversationAddress, i: number): InboundMessage => ({
  ...address,
  user: "u",
  text: `${address.conversation}-m${i}`,
  attachments: [],
  eventId: `${address.conversation}-e${i}`,
  time: Date.now(),
});

const opened: Switchyard[] = [];
let fake: FakeOpenAI | undefined;
let prefix = "";

afterEach(async () => {
  for (const app of opened.splice(0).reverse()) await app.close();
  await fake?.close();
  const redis = testRedisFactory().create("reader");
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

async function start(options: { shards: number; worker: boolean }): Promise<Switchyard> {
  fake ??= await startFakeOpenAI({ responder: acknowledge });
  const app = await startSwitchyard({
    redis: testRedisFactory(),
    prefix,
    registry: new ToolRegistry([]),
    provider: createOpenAIProvider({ apiKey: "test", baseURL: fake.url, model: "fake-model" }),
    shards: options.shards,
    worker: options.worker,
    drainIntervalMs: 200,
    leaseMs: 2_000,
    lockDurationMs: 2_000,
    stalledIntervalMs: 1_000,
  });
  opened.push(app);
  return app;
}

/** Every conversation's acknowledged messages, in the order they were answered. */
async function acknowledged(app: Switchyard): Promise<Map<string, string[]>> {
  const byConversation = new Map<string, string[]>();
  for (const post of (await app.outbox.read("0", 100)).filter((e) => e.kind === "post")) {
    const list = byConversation.get(post.conversation) ?? [];
    list.push(...post.text.replace(/^ack:/, "").split(",").filter(Boolean));
    byConversation.set(post.conversation, list);
  }
  return byConversation;
}

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the sharded conversation queue", () => {
  it("loses nothing when the shard count changes: workers of a new count drain the queues of the old ones", async () => {
    prefix = uniquePrefix("shards");
    // Producers of two earlier counts queue messages while no worker runs:
    // what a rolling change of queue.shards leaves behind.
    const one = await start({ shards: 1, worker: false });
    for (const address of addresses) {
      for (let i = 1; i <= 3; i++) await one.queue.enqueue(message(address, i));
    }
    const four = await start({ shards: 4, worker: false });
    for (const address of addresses) {
      for (let i = 4; i <= 6; i++) await four.queue.enqueue(message(address, i));
    }
    // The version before sharding left a job in the untagged queue (it cannot exist on a
    // cluster), for a conversation no other job looks at.
    const legacy: ConversationAddress = {
      ...(addresses[0] as ConversationAddress),
      conversation: "old",
    };
    const everyone = TOPOLOGY === "single" ? [...addresses, legacy] : addresses;
    if (TOPOLOGY === "single") {
      const keys = new KeyScheme(prefix);
      const old = new Queue(TURN_QUEUE, {
        connection: one.redis,
        prefix: keys.legacyQueuePrefix(),
      });
      await new Inbox(one.redis, keys).push(message(legacy, 1), Date.now());
      await old.add(
        "turn",
        { address: legacy, enqueuedAt: Date.now() },
        { jobId: "legacy-1", removeOnComplete: true },
      );
      await old.close();
    }
    const jobs = await Promise.all(
      [...one.queue.queues, ...four.queue.queues].map((q) => q.getJobCounts("wait")),
    );
    expect(jobs.reduce((n, c) => n + (c.wait ?? 0), 0)).toBeGreaterThan(0);

    // Workers now run with a third count: none of the queued jobs is on its queues.
    const worker = await start({ shards: 2, worker: true });
    const expected = (address: ConversationAddress) =>
      Array.from(
        { length: address === legacy ? 1 : 6 },
        (_, i) => `${address.conversation}-m${i + 1}`,
      );
    await until(async () => {
      const got = await acknowledged(worker);
      return everyone.every(
        (a) => (got.get(conversationKey(a)) ?? []).length >= expected(a).length,
      );
    }, "every queued message was answered");
    const got = await acknowledged(worker);
    for (const address of everyone) {
      expect(got.get(conversationKey(address)), address.conversation).toEqual(expected(address));
    }
    // Drained queues are let go once empty; the worker is back to its own shards.
    await until(async () => worker.worker?.drainer.draining.length === 0, "the drains stopped");
    for (const queue of [...one.queue.queues, ...four.queue.queues]) {
      const counts = await queue.getJobCounts("wait", "active", "delayed");
      expect(counts).toEqual({ wait: 0, active: 0, delayed: 0 });
    }
  });

  it("puts a conversation's jobs on one shard, each shard's keys in one slot, and the shards on different slots", async () => {
    prefix = uniquePrefix("shards");
    const app = await start({ shards: 4, worker: false });
    for (const address of addresses) await app.queue.enqueue(message(address, 1));
    const keys = new KeyScheme(prefix);
    const all = await keysUnder(app.redis, prefix);
    const slotsOfShard = [0, 1, 2, 3].map((shard) => {
      const shardPrefix = keys.turnQueuePrefix(shard, 4);
      return new Set(all.filter((key) => key.startsWith(`${shardPrefix}:`)).map(keySlot));
    });
    for (const slots of slotsOfShard) expect(slots.size).toBeLessThanOrEqual(1);
    // Twelve conversations over four shards: more than one shard has work.
    expect(slotsOfShard.filter((slots) => slots.size === 1).length).toBeGreaterThan(1);
    const used = slotsOfShard.flatMap((slots) => [...slots]);
    expect(new Set(used).size).toBe(used.length);
    // A second event of a conversation goes to the same shard as its first.
    const counts = await Promise.all(app.queue.queues.map((q) => q.getJobCounts("wait")));
    for (const address of addresses) await app.queue.enqueue(message(address, 2));
    const again = await Promise.all(app.queue.queues.map((q) => q.getJobCounts("wait")));
    expect(again.map((c) => c.wait)).toEqual(counts.map((c) => (c.wait ?? 0) * 2));
  });
});
