import { describe, expect, it } from "vitest";
import { AssistantThreads } from "../../src/platforms/slack/assistant-threads.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { connectRedis, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("assistant");
const ref = { workspace: "T0TEAM", channel: "D0HUMAN", thread: "1700000000.000100" };

describe("the assistant pane's threads in Redis", () => {
  it("keeps what the person looks at, replacing the whole context on each change", async () => {
    const keys = new KeyScheme(db.prefix);
    const threads = new AssistantThreads(db.redis, keys);
    expect(await threads.read(ref)).toBeUndefined();
    await threads.save(ref, {
      user: "U0HUMAN",
      context: { channel: "C0GENERAL", team: "T0TEAM", enterprise: "E0ORG" },
      channelName: "general",
    });
    expect(await threads.read(ref)).toEqual({
      user: "U0HUMAN",
      context: { channel: "C0GENERAL", team: "T0TEAM", enterprise: "E0ORG" },
      channelName: "general",
    });
    // Looking at something Slack names no channel for: nothing of #general is left behind.
    await threads.save(ref, { user: "U0HUMAN", context: {} });
    expect(await threads.read(ref)).toEqual({ user: "U0HUMAN", context: {} });
    const key = keys.assistantThread(
      { platform: "slack", workspace: "T0TEAM", channel: "D0HUMAN" },
      ref.thread,
    );
    const ttl = await db.redis.ttl(key);
    expect(ttl).toBeGreaterThan(29 * 24 * 3600);
    // Another process reads the same thread.
    const other = connectRedis();
    try {
      expect((await new AssistantThreads(other, keys).read(ref))?.user).toBe("U0HUMAN");
    } finally {
      other.disconnect();
    }
  });

  it("keeps the newer context when Slack redelivers an older event after it", async () => {
    const threads = new AssistantThreads(db.redis, new KeyScheme(db.prefix));
    const at = (channel: string) => ({ user: "U0HUMAN", context: { channel } });
    expect(await threads.save(ref, at("C0FIRST"), "1700000000.000200")).toBe(true);
    expect(await threads.save(ref, at("C0LATER"), "1700000001.5")).toBe(true);
    // The first event again (its ack was lost): older than what is stored.
    expect(await threads.save(ref, at("C0FIRST"), "1700000000.000200")).toBe(false);
    // Same second, later micros; and a ts with fewer digits that is still later.
    expect(await threads.save(ref, at("C0SAME"), "1700000001.500001")).toBe(true);
    expect(await threads.save(ref, at("C0OLD"), "999999999.9")).toBe(false);
    expect((await threads.read(ref))?.context).toEqual({ channel: "C0SAME" });
  });

  it("lets exactly one of many ingress processes title a thread", async () => {
    const keys = new KeyScheme(db.prefix);
    await new AssistantThreads(db.redis, keys).save(ref, { user: "U0HUMAN", context: {} });
    const clients = Array.from({ length: 8 }, () => connectRedis());
    try {
      const claims = await Promise.all(
        clients.flatMap((redis) => {
          const threads = new AssistantThreads(redis, keys);
          return [threads.claimTitle(ref), threads.claimTitle(ref)];
        }),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // The context stays; a later save keeps the claim.
      await new AssistantThreads(db.redis, keys).save(ref, {
        user: "U0HUMAN",
        context: { channel: "C1" },
      });
      expect(await new AssistantThreads(db.redis, keys).claimTitle(ref)).toBe(false);
    } finally {
      for (const redis of clients) redis.disconnect();
    }
  });
});
