import type { Update } from "grammy/types";
import { ReplyError } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTelegramApi, describeTelegramError } from "../../src/platforms/telegram/api.ts";
import { UpdatePoller } from "../../src/platforms/telegram/polling.ts";
import { isTransientUpdateFailure } from "../../src/platforms/telegram/update-failure.ts";
import { UpdateOffset } from "../../src/platforms/telegram/update-offset.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ALICE, BOB } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("telegram-poll");
let telegram: FakeTelegram;
let pollers: UpdatePoller[] = [];
beforeEach(async () => {
  telegram = await startFakeTelegram();
  telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
  telegram.addChat({ id: BOB.id, type: "private", title: "Bob" });
});
afterEach(async () => {
  for (const poller of pollers) await poller.stop();
  pollers = [];
  await telegram.close();
});

/** What Redis answers a write under `maxmemory` with `noeviction`. */
const oom = () =>
  new ReplyError("OOM command not allowed when used memory > 'maxmemory'.") as Error;

/** A poller over the fake with a take that fails as told; returns what it logged and skipped. */
function poll(take: (update: Update) => Promise<void>, token = telegram.token) {
  const warnings: string[] = [];
  const skipped: { update: Update; error: unknown }[] = [];
  const offset = new UpdateOffset(db.redis, `${db.prefix}:telegram:1:offset`);
  const poller = new UpdatePoller({
    api: createTelegramApi(token, telegram.apiRoot),
    offset,
    take,
    isTransient: isTransientUpdateFailure,
    skip: async (update, error) => {
      skipped.push({ update, error });
    },
    allowedUpdates: ["message"],
    timeoutSeconds: 5,
    retryMs: 20,
    maxRetryMs: 100,
    heldPollMs: 50,
    logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) },
    describe: (error) => describeTelegramError(error, token),
  });
  pollers.push(poller);
  poller.start();
  return { warnings, skipped, offset, poller };
}

const textOf = (update: Update) => update.message?.text ?? "";
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe("long polling", () => {
  it("holds an update while Redis refuses it, for as many tries as it takes, and confirms it only once taken", async () => {
    const taken: string[] = [];
    let refusals = 12;
    const { offset, skipped } = poll(async (update) => {
      if (textOf(update) === "first" && refusals-- > 0) throw oom();
      taken.push(textOf(update));
    });
    const first = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "first" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "second" });
    await until(() => (taken.length === 2 ? true : undefined));
    expect(taken).toEqual(["first", "second"]);
    expect(refusals).toBeLessThan(0);
    expect(skipped).toEqual([]);
    await until(() => (telegram.pending.length === 0 ? true : undefined));
    expect(await offset.read()).toBe((first.update_id as number) + 2);
  });

  it("takes other chats' updates while one chat's is held, keeping each chat's order", async () => {
    const taken: string[] = [];
    let redisBack = false;
    const { offset } = poll(async (update) => {
      if (update.message?.chat.id === ALICE.id && !redisBack) throw oom();
      taken.push(textOf(update));
    });
    const held = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "alice 1" });
    telegram.userSends({ chat: BOB.id, from: BOB, text: "bob 1" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "alice 2" });
    telegram.userSends({ chat: BOB.id, from: BOB, text: "bob 2" });
    await until(() => (taken.length === 2 ? true : undefined));
    expect(taken).toEqual(["bob 1", "bob 2"]);
    // Bob's are taken, but the offset may not pass Alice's held update: Telegram would forget it.
    await settle();
    expect(telegram.pending.map(textOf)).toContain("alice 1");
    const stored = await offset.read();
    expect(stored === undefined || stored <= (held.update_id as number)).toBe(true);
    redisBack = true;
    await until(() => (taken.length === 4 ? true : undefined));
    expect(taken.filter((t) => t.startsWith("alice"))).toEqual(["alice 1", "alice 2"]);
    await until(() => (telegram.pending.length === 0 ? true : undefined));
    expect(await offset.read()).toBe((held.update_id as number) + 4);
  });

  it("gives each update to take once, though every poll returns it while another is held", async () => {
    const calls = new Map<string, number>();
    let redisBack = false;
    const { poller } = poll(async (update) => {
      calls.set(textOf(update), (calls.get(textOf(update)) ?? 0) + 1);
      if (textOf(update) === "held" && !redisBack) throw oom();
    });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "held" });
    telegram.userSends({ chat: BOB.id, from: BOB, text: "bob" });
    await until(() => (calls.get("bob") ? true : undefined));
    const polls = telegram.callsTo("getUpdates").length;
    await settle(1_000);
    // Polls go on (for other chats' updates) a short pause apart, never in a tight loop.
    expect(telegram.callsTo("getUpdates").length - polls).toBeLessThan(60);
    redisBack = true;
    await until(() => (telegram.pending.length === 0 ? true : undefined));
    await poller.stop();
    expect(calls.get("bob")).toBe(1);
    expect(calls.get("held")).toBeGreaterThan(1);
  });

  it("skips an update that fails for another reason after one try, telling skip, and goes on in its chat", async () => {
    const taken: string[] = [];
    let tries = 0;
    const { skipped, warnings } = poll(async (update) => {
      if (textOf(update) === "poison") {
        tries++;
        throw new TypeError("Cannot read properties of undefined (reading 'id')");
      }
      taken.push(textOf(update));
    });
    const poison = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "poison" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "fine" });
    await until(() => (taken.length === 1 ? true : undefined));
    expect(taken).toEqual(["fine"]);
    expect(tries).toBe(1);
    expect(skipped.map((s) => s.update.update_id)).toEqual([poison.update_id]);
    expect(String(skipped[0]?.error)).toContain("reading 'id'");
    expect(warnings.join("\n")).not.toContain("held");
  });

  it("resumes from the stored offset after a restart: a held update comes again, the taken ones do not", async () => {
    const taken: string[] = [];
    let redisBack = false;
    const take = async (update: Update) => {
      if (textOf(update) === "held" && !redisBack) throw oom();
      taken.push(textOf(update));
    };
    const first = poll(take);
    telegram.userSends({ chat: BOB.id, from: BOB, text: "before" });
    await until(() => (taken.includes("before") ? true : undefined));
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "held" });
    await settle();
    await first.poller.stop();
    redisBack = true;
    poll(take);
    await until(() => (taken.includes("held") ? true : undefined));
    await settle();
    expect(taken).toEqual(["before", "held"]);
  });

  it("stores the offset past the last of a burst of chats' updates by the time it stops", async () => {
    const taken: string[] = [];
    const { offset, poller } = poll(async (update) => {
      taken.push(textOf(update));
    });
    let last: Update | undefined;
    for (let i = 0; i < 30; i++) {
      const id = 500 + i;
      const person = { ...BOB, id, first_name: `Person ${i}` };
      telegram.addChat({ id, type: "private", title: person.first_name });
      last = telegram.userSends({ chat: id, from: person, text: `hello ${i}` });
    }
    await until(() => (taken.length === 30 ? true : undefined));
    await poller.stop();
    expect(await offset.read()).toBe((last?.update_id as number) + 1);
  });

  it("stops on a refused token, naming the variable and never the token", async () => {
    const wrong = "7000000001:AAWrongTokenWrongTokenWrong";
    const { warnings } = poll(async () => {}, wrong);
    await until(() => (warnings.length > 0 ? true : undefined));
    expect(warnings[0]).toContain("Check TELEGRAM_BOT_TOKEN");
    expect(warnings.join("\n")).not.toContain(wrong);
  });
});
