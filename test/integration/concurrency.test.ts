import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../../src/core/conversation.ts";
import type { OutboxEntry } from "../../src/platforms/terminal/outbox.ts";
import { RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { startWorkerProcess, type WorkerProcess } from "../support/workers.ts";

/** The fake model acknowledges exactly the person's messages it has not answered yet. */
function acknowledge(request: RecordedRequest) {
  const messages = request.body.messages as { role: string; content: string }[];
  const lastAnswer = messages.map((m) => m.role).lastIndexOf("assistant");
  const fresh = messages.slice(lastAnswer + 1).filter((m) => m.role === "user");
  return {
    content: `ack:${fresh.map((m) => m.content).join(",")}`,
    delayMs: Math.floor(Math.random() * 15),
  };
}

/** The pids in the lease tokens held right now (`<job>|<pid>.<n>|<n>`), on every master of a cluster. */
async function leaseHolders(redis: Redis, prefix: string): Promise<string[]> {
  const nodes = redis.isCluster ? (redis as unknown as Cluster).nodes("master") : [redis];
  const tokens: string[] = [];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(
        cursor,
        "MATCH",
        `${prefix}:{conv:*}:lease`,
        "COUNT",
        1000,
      );
      cursor = next;
      // One GET per key: on a cluster the leases are in different slots.
      for (const token of await Promise.all(keys.map((key) => node.get(key)))) {
        if (token) tokens.push(token);
      }
    } while (cursor !== "0");
  }
  return tokens;
}

/** Commands that are the cluster's upkeep or the test's own probing, not the queue's work. */
const UPKEEP =
  /^cmdstat_(cluster|info|ping|client|command|config|hello|readonly|select|auth|scan|get)$/;

/** Each master's count of commands run so far (INFO commandstats, no MONITOR), by address. */
async function commandsPerMaster(redis: Redis): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (!redis.isCluster) return counts;
  for (const node of (redis as unknown as Cluster).nodes("master")) {
    const info = await node.info("commandstats");
    let total = 0;
    for (const [, name, calls] of info.matchAll(/^(cmdstat_[a-z|_-]+):calls=(\d+)/gm)) {
      if (!UPKEEP.test(name as string)) total += Number(calls);
    }
    counts.set(`${node.options.host}:${node.options.port}`, total);
  }
  return counts;
}

const CONVERSATIONS = 50;
const MESSAGES = 20;
const WORKERS = 4;
/** On a 3-master cluster, 4 shards put the queue on every master; on one Redis it tests sharding itself. */
const SHARDS = 4;

describe("many conversations on many worker processes", () => {
  let fake: FakeOpenAI;
  let redis: Redis;
  let queue: ConversationQueue;
  let outbox: RedisOutbox;
  const prefix = uniquePrefix("conc");
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI({ responder: acknowledge });
    redis = connectRedis({ maxRetriesPerRequest: null });
    const keys = new KeyScheme(prefix);
    queue = new ConversationQueue(new Inbox(redis, keys), { prefix, shards: SHARDS });
    outbox = new RedisOutbox(redis, prefix, conversationKey);
    const env = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
      SWITCHYARD_CONCURRENCY: "16",
      SWITCHYARD_QUEUE_SHARDS: String(SHARDS),
    };
    workers.push(
      ...(await Promise.all(Array.from({ length: WORKERS }, () => startWorkerProcess(env)))),
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await queue?.close();
    await deleteKeysUnder(redis, prefix);
    redis?.disconnect();
    await fake?.close();
  });

  it("answers every message exactly once, in order per conversation, and dedupes repeated events", async () => {
    const addresses: ConversationAddress[] = Array.from({ length: CONVERSATIONS }, (_, c) => ({
      platform: "console",
      workspace: "w",
      channel: `ch${c % 5}`,
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
    const before = await commandsPerMaster(redis);
    // Every conversation at once; within one, messages in arrival order, and every
    // fifth event delivered a second time, as a platform retry would.
    await Promise.all(
      addresses.map(async (address) => {
        for (let i = 1; i <= MESSAGES; i++) {
          await queue.enqueue(message(address, i));
          if (i % 5 === 0) await queue.enqueue(message(address, i));
        }
      }),
    );

    const expected = new Map(
      addresses.map((a) => [
        conversationKey(a),
        Array.from({ length: MESSAGES }, (_, i) => `${a.conversation}-m${i + 1}`),
      ]),
    );
    const acked = (posts: OutboxEntry[]) => {
      const byConversation = new Map<string, string[]>();
      for (const post of posts) {
        const list = byConversation.get(post.conversation) ?? [];
        list.push(...post.text.replace(/^ack:/, "").split(",").filter(Boolean));
        byConversation.set(post.conversation, list);
      }
      return byConversation;
    };
    const deadline = Date.now() + 120_000;
    let posts: OutboxEntry[] = [];
    const holders = new Set<string>();
    for (;;) {
      for (const token of await leaseHolders(redis, prefix))
        holders.add(token.split("|")[1]?.split(".")[0] ?? "");
      posts = (await outbox.read("0", 100)).filter((e) => e.kind === "post");
      const total = [...acked(posts).values()].reduce((n, list) => n + list.length, 0);
      if (total >= CONVERSATIONS * MESSAGES || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Anything still in flight would show up as a second answer now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    posts = (await outbox.read("0", 100)).filter((e) => e.kind === "post");

    const got = acked(posts);
    for (const [key, messages] of expected) expect(got.get(key), key).toEqual(messages);
    const keys = posts.map((p) => p.key);
    expect(new Set(keys).size).toBe(keys.length);
    // Turns were spread over the worker processes, not all run by one.
    expect(holders.size).toBeGreaterThan(1);
    for (const pid of holders) expect(workers.map((w) => String(w.pid))).toContain(pid);
    // On a cluster, the work was spread over the masters: no master ran most of it.
    const after = await commandsPerMaster(redis);
    const served = [...after].map(
      ([node, calls]) => [node, calls - (before.get(node) ?? 0)] as const,
    );
    const total = served.reduce((sum, [, calls]) => sum + calls, 0);
    for (const [node, calls] of served) {
      expect(calls / total, `${node} ran ${calls} of ${total} commands`).toBeLessThanOrEqual(0.6);
      expect(calls, `${node} ran none of the work`).toBeGreaterThan(0);
    }
  }, 180_000);
});
