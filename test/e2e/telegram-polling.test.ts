import type { Update } from "grammy/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTelegramApi, describeTelegramError } from "../../src/channels/telegram/api.ts";
import { UpdatePoller } from "../../src/channels/telegram/polling.ts";
import { UpdateOffset } from "../../src/channels/telegram/update-offset.ts";
import { type FakeTelegram, startFakeTelegram } from "../fakes/telegram-api.ts";
import { ALICE } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("telegram-poll");
let telegram: FakeTelegram;
let poller: UpdatePoller | undefined;
beforeEach(async () => {
  telegram = await startFakeTelegram();
  telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
});
afterEach(async () => {
  await poller?.stop();
  poller = undefined;
  await telegram.close();
});

/** A poller over the fake with a take that fails as told; returns what was taken, in order. */
function poll(take: (update: Update) => Promise<void>, token = telegram.token) {
  const warnings: string[] = [];
  const offset = new UpdateOffset(db.redis, `${db.prefix}:telegram:1:offset`);
  poller = new UpdatePoller({
    api: createTelegramApi(token, telegram.apiRoot),
    offset,
    take,
    allowedUpdates: ["message"],
    timeoutSeconds: 5,
    retryMs: 20,
    maxAttempts: 3,
    logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) },
    describe: (error) => describeTelegramError(error, token),
  });
  poller.start();
  return { warnings, offset };
}

const textOf = (update: Update) => update.message?.text ?? "";

describe("long polling", () => {
  it("tries an update that failed again before any after it, and confirms it only once taken", async () => {
    const taken: string[] = [];
    let failures = 1;
    const { offset } = poll(async (update) => {
      if (textOf(update) === "first" && failures-- > 0) throw new Error("the queue is away");
      taken.push(textOf(update));
    });
    const first = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "first" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "second" });
    await until(() => (taken.length === 2 ? true : undefined));
    expect(taken).toEqual(["first", "second"]);
    await until(() => (telegram.pending.length === 0 ? true : undefined));
    expect(await offset.read()).toBe((first.update_id as number) + 2);
  });

  it("skips an update that fails every try, with a warning, so the bot keeps answering", async () => {
    const taken: string[] = [];
    const { warnings } = poll(async (update) => {
      if (textOf(update) === "poison") throw new Error("cannot read this one");
      taken.push(textOf(update));
    });
    const poison = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "poison" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "fine" });
    await until(() => (taken.length === 1 ? true : undefined));
    expect(taken).toEqual(["fine"]);
    expect(warnings.filter((w) => w.includes(`update ${poison.update_id}`))).toHaveLength(3);
    expect(warnings.at(-1)).toContain("could not be taken after 3 tries; it is skipped");
    expect(warnings.at(-1)).toContain("cannot read this one");
  });

  it("stops on a refused token, naming the variable and never the token", async () => {
    const wrong = "7000000001:AAWrongTokenWrongTokenWrong";
    const { warnings } = poll(async () => {}, wrong);
    await until(() => (warnings.length > 0 ? true : undefined));
    expect(warnings[0]).toContain("Check TELEGRAM_BOT_TOKEN");
    expect(warnings.join("\n")).not.toContain(wrong);
  });
});
