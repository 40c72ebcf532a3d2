import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../../src/core/conversation.ts";
import { type SpawnedRedis, spawnRedis } from "../../src/ops/redis/redis-spawn.ts";
import { type OutboxEntry, RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { RedisFactory } from "../../src/store/redis/redis-factory.ts";
import { topologyFrom } from "../../src/store/redis/redis-topology.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type LocalSentinels, startLocalSentinels } from "../support/redis-sentinel.ts";
import { startWorkerProcess, type WorkerProcess } from "../support/workers.ts";

/**
 * Sentinel, all local: one master, one replica, three sentinels. The master
 * is killed (SIGKILL) while messages are being queued and answered; the
 * replica is promoted, the producer and the worker processes follow it, and
 * every message is answered exactly once. Enqueues wait for the replica
 * (queue.wait_for_replicas: 1), so an acknowledged message is on the node
 * that survives; the killed master comes back as the new master's replica,
 * as a rebooted machine would.
 */

function acknowledge(request: RecordedRequest) {
  const messages = request.body.messages as { role: string; content: string }[];
  const lastAnswer = messages.map((m) => m.role).lastIndexOf("assistant");
  const fresh = messages.slice(lastAnswer + 1).filter((m) => m.role === "user");
  return { content: `ack:${fresh.map((m) => m.content).join(",")}`, delayMs: 20 };
}

const CONVERSATIONS = 8;
const MESSAGES = 12;

describe("a Sentinel failover under load", () => {
  let sentinels: LocalSentinels;
  let fake: FakeOpenAI;
  let factory: RedisFactory;
  let redis: Redis;
  let queueConnection: Redis;
  let queue: ConversationQueue;
  let restarted: SpawnedRedis | undefined;
  const prefix = uniquePrefix("sentinel");
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    sentinels = await startLocalSentinels({ downAfterMs: 1_000 });
    fake = await startFakeOpenAI({ responder: acknowledge });
    const variables = {
      REDIS_SENTINELS: sentinels.sentinels.join(","),
      REDIS_SENTINEL_NAME: sentinels.name,
    };
    factory = new RedisFactory(topologyFrom(variables));
    redis = factory.create("state");
    queueConnection = factory.create("queue");
    // Reconnecting through the failover is expected; the test asserts on outcomes, not on these.
    for (const client of [redis, queueConnection]) client.on("error", () => {});
    queue = new ConversationQueue(new Inbox(queueConnection, new KeyScheme(prefix)), {
      prefix,
      waitForReplicas: 1,
      waitTimeoutMs: 500,
    });
    const env = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
      SWITCHYARD_CONCURRENCY: "8",
      SWITCHYARD_LEASE_MS: "2000",
      SWITCHYARD_LOCK_MS: "2000",
      SWITCHYARD_STALLED_INTERVAL_MS: "1000",
    };
    workers.push(
      ...(await Promise.all([
        startWorkerProcess(env, variables),
        startWorkerProcess(env, variables),
      ])),
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await queue?.close();
    redis?.disconnect();
    queueConnection?.disconnect();
    await fake?.close();
    await restarted?.stop();
    await sentinels?.stop();
  });

  it("promotes the replica, reconnects every process to it, and answers every message once", async () => {
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
    let queued = 0;
    let failedAttempts = 0;
    /** As a platform does: an event not acknowledged is delivered again, with the same id. */
    const deliver = async (event: InboundMessage) => {
      for (;;) {
        try {
          await queue.enqueue(event);
          queued++;
          return;
        } catch {
          failedAttempts++;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    const oldMaster = sentinels.master;
    const load = Promise.all(
      addresses.map(async (address) => {
        for (let i = 1; i <= MESSAGES; i++) {
          await deliver(message(address, i));
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
      }),
    );
    // Kill the master once a third of the messages are in, with turns running.
    while (queued < (CONVERSATIONS * MESSAGES) / 3) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await oldMaster.kill();
    const deadline = Date.now() + 30_000;
    let promoted = await sentinels.currentMasterPort();
    while (promoted === oldMaster.port) {
      if (Date.now() > deadline) throw new Error("the sentinels did not fail over in 30 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
      promoted = await sentinels.currentMasterPort();
    }
    // The crashed machine reboots; the sentinels make it the new master's replica.
    restarted = await spawnRedis({
      dataDir: oldMaster.dataDir,
      port: oldMaster.port,
      args: ["--appendfsync", "always"],
    });
    await load;

    const outbox = new RedisOutbox(redis, prefix, conversationKey);
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
    const until = Date.now() + 60_000;
    let posts: OutboxEntry[] = [];
    for (;;) {
      posts = (await outbox.read("0", 100)).filter((e) => e.kind === "post");
      const total = [...acked(posts).values()].reduce((n, list) => n + list.length, 0);
      if (total >= CONVERSATIONS * MESSAGES || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A turn still in flight would show up now as a second answer.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    posts = (await outbox.read("0", 100)).filter((e) => e.kind === "post");

    const got = acked(posts);
    for (const [key, messages] of expected) expect(got.get(key), key).toEqual(messages);
    const keys = posts.map((p) => p.key);
    expect(new Set(keys).size).toBe(keys.length);
    // The failover happened under load, and every worker process is still up, on the new master.
    // (Read when it happened: on a loaded machine the sentinels may later fail back to the
    // rebooted old master, which is a second failover, not a missing one.)
    expect(promoted).not.toBe(oldMaster.port);
    expect(failedAttempts).toBeGreaterThan(0);
    for (const worker of workers) expect(worker.child.exitCode).toBeNull();
  }, 120_000);
});
