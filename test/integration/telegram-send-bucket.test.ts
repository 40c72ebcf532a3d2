import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { RedisSendBucket } from "../../src/platforms/telegram/send-bucket.ts";
import { SendPacer } from "../../src/platforms/telegram/send-pacer.ts";
import { schemeKeyKind } from "../../src/store/key-parse.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { connectRedis, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("send-bucket");
const opened: Redis[] = [];
afterEach(async () => {
  for (const redis of opened.splice(0)) redis.disconnect();
});

/** A process of its own: its own Redis connection, and a pacer drawing from the bot's bucket. */
function process(key: string, pace: { perSecond: number; burst: number }) {
  const redis = connectRedis();
  opened.push(redis);
  const warnings: string[] = [];
  const pacer = new SendPacer(pace);
  pacer.share(new RedisSendBucket(redis, key), { warn: (message) => warnings.push(message) });
  return { pacer, redis, warnings };
}

/** The most sends within any window, less what the bucket allows there: above 0 is over the pace. */
function worstExcess(times: readonly number[], pace: { perSecond: number; burst: number }): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = Number.NEGATIVE_INFINITY;
  for (const [i, from] of sorted.entries()) {
    for (let k = i; k < sorted.length; k++) {
      const allowed = pace.burst + (((sorted[k] as number) - from) * pace.perSecond) / 1000;
      worst = Math.max(worst, k - i + 1 - allowed);
    }
  }
  return worst;
}

describe("one bot's send bucket in Redis", () => {
  it("holds two processes sending at once to the one pace together", async () => {
    const pace = { perSecond: 50, burst: 5 };
    const key = new KeyScheme(db.prefix).sendBucket("telegram", "123456", "messages");
    const a = process(key, pace);
    const b = process(key, pace);
    const sent: { at: number; by: string }[] = [];
    // Both "processes" share this event loop: a stall in it (a busy machine) lets due sends out together.
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const start = Date.now();
    // 120 messages at once, half from each process: alone, each would send its 60 in 1.1 s.
    await Promise.all(
      Array.from({ length: 120 }, (_, i) => {
        const [by, { pacer }] = i % 2 === 0 ? ["a", a] : ["b", b];
        return pacer.take("post").then(() => sent.push({ at: Date.now() - start, by }));
      }),
    );
    lag.disable();
    expect(sent).toHaveLength(120);
    // Together at 50 a second: 5 at once, 115 more over 2.3 s.
    expect(Math.max(...sent.map((s) => s.at))).toBeGreaterThanOrEqual(2_200);
    // Within the bound, but for a message or two a reply's trip carried into a later window, and
    // what came due while the event loop stalled (two processes each at the full pace would be
    // some 55 over).
    const stalled = Math.ceil(((lag.max / 1e6) * pace.perSecond) / 1000);
    expect(
      worstExcess(
        sent.map((s) => s.at),
        pace,
      ),
    ).toBeLessThanOrEqual(2 + stalled);
    // Both processes sent all the while: each had its share, neither waited for the other to finish.
    const half = sent.filter((s) => s.at < 1_200);
    expect(half.filter((s) => s.by === "a").length).toBeGreaterThan(10);
    expect(half.filter((s) => s.by === "b").length).toBeGreaterThan(10);
    expect([...a.warnings, ...b.warnings]).toEqual([]);
    // The bucket is one key, built by the key scheme, which expires once it would be full again.
    expect(schemeKeyKind(db.prefix, key)).toBe("send-pace");
    const ttl = await db.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    // Its bookings reach a burst ahead, then it refills from them: a second more at most.
    expect(ttl).toBeLessThanOrEqual(1_000 + ((2 * pace.burst + 1) * 1000) / pace.perSecond);
  }, 20_000);

  it("keeps sending on the process's own pace when its Redis connection is gone, and says so once", async () => {
    const pace = { perSecond: 100, burst: 5 };
    const key = new KeyScheme(db.prefix).sendBucket("telegram", "123456", "messages");
    const { pacer, redis, warnings } = process(key, pace);
    await redis.ping();
    redis.disconnect();
    const start = Date.now();
    await Promise.all(Array.from({ length: 40 }, () => pacer.take("post")));
    // 5 at once, then 100 a second: no wait for a reconnect, nothing lost.
    expect(Date.now() - start).toBeLessThan(1_000);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/did not answer/);
  }, 20_000);
});
