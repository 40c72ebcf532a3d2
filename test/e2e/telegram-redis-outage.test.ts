import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EventLedger } from "../../src/ingress/event-ledger.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { type RefusingRedis, startRefusingRedis } from "../fakes/telegram-refusing-redis.ts";
import { ALICE, BOB, BOT, startTelegram, type TelegramSetup } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { uniquePrefix } from "../support/redis.ts";

let redis: RefusingRedis;
beforeAll(async () => {
  redis = await startRefusingRedis();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

let setup: TelegramSetup | undefined;
afterEach(async () => {
  await redis.acceptWrites();
  await setup?.channel.stop();
  await setup?.pipe.close();
  await setup?.telegram.close();
  setup = undefined;
});

/** The bot by long polling on the refusing Redis: queue, ledger and offset all live there. */
async function start(telegram?: FakeTelegram, prefix?: string): Promise<TelegramSetup> {
  setup = await startTelegram({
    redisUrl: redis.url,
    ...(telegram ? { telegram } : {}),
    ...(prefix ? { prefix } : {}),
    channel: { retryMs: 50, maxRetryMs: 250 },
  });
  setup.telegram.addChat({ id: BOB.id, type: "private", title: "Bob" });
  return setup;
}

/** The person's messages the model saw for a chat, in the order it saw them. */
function seenBy(s: TelegramSetup, chat: number): string[] {
  const last = s.pipe.fake.requests
    .map((r) => r.body.messages as { role: string; content: string }[])
    .filter((messages) => messages.some((m) => m.role === "user" && m.content.includes(`${chat}`)))
    .at(-1);
  return (last ?? []).filter((m) => m.role === "user").map((m) => m.content);
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Telegram long polling while Redis refuses writes", () => {
  it("loses no message and keeps each chat's order through a Redis that refuses writes", async () => {
    const s = await start();
    const { telegram } = s;
    await redis.refuseWrites();
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: `alice ${ALICE.id} one` });
    telegram.userSends({ chat: BOB.id, from: BOB, text: `bob ${BOB.id} one` });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: `alice ${ALICE.id} two` });
    telegram.userSends({ chat: BOB.id, from: BOB, text: `bob ${BOB.id} two` });
    // Held far past the five tries (with these pauses, under a second) after which updates used to be dropped.
    await until(() =>
      s.warnings.filter((w) => w.includes("held")).length >= 2 ? true : undefined,
    );
    await settle(3_000);
    expect(s.warnings.join("\n")).toContain("OOM command not allowed");
    expect(telegram.botMessages(ALICE.id)).toHaveLength(0);
    expect(s.channel.skippedUpdates).toBe(0);
    await redis.acceptWrites();
    await until(() => {
      const alice = seenBy(s, ALICE.id);
      const bob = seenBy(s, BOB.id);
      return alice.length === 2 && bob.length === 2 ? true : undefined;
    }, 30_000);
    expect(seenBy(s, ALICE.id)).toEqual([`alice ${ALICE.id} one`, `alice ${ALICE.id} two`]);
    expect(seenBy(s, BOB.id)).toEqual([`bob ${BOB.id} one`, `bob ${BOB.id} two`]);
    await until(() =>
      telegram.botMessages(ALICE.id).length > 0 && telegram.botMessages(BOB.id).length > 0
        ? true
        : undefined,
    );
    await until(() => (telegram.pending.length === 0 ? true : undefined));
  }, 60_000);

  it("answers another chat while one chat's update waits, and then that one too, once", async () => {
    // A process that crashed while taking Alice's update left its claim behind
    // (it expires after its minute; here after 3 s): her update must wait for it.
    const telegram = await startFakeTelegram();
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    const stuck = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "alice waits" });
    const prefix = uniquePrefix("outage");
    const admin = new Redis(redis.url);
    const crashed = new EventLedger(admin, `${prefix}:telegram:${BOT.id}`, 3_000);
    expect(await crashed.claim(`update:${stuck.update_id}`)).toBe("fresh");
    admin.disconnect();
    const s = await start(telegram, prefix);
    telegram.userSends({ chat: BOB.id, from: BOB, text: "bob goes on" });
    await until(() => (telegram.botMessages(BOB.id).length > 0 ? true : undefined));
    expect(telegram.botMessages(ALICE.id)).toHaveLength(0);
    await until(() => (telegram.botMessages(ALICE.id).length > 0 ? true : undefined));
    await settle(500);
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual(["echo: alice waits"]);
    expect(telegram.botMessages(BOB.id).map((m) => m.text)).toEqual(["echo: bob goes on"]);
    expect(s.channel.skippedUpdates).toBe(0);
  }, 30_000);
});
