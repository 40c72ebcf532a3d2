import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { OpsServer } from "../../src/observability/http.ts";
import { SKIPPED_MESSAGE_REPLY } from "../../src/platforms/telegram/skipped-update.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { startRefusingRedis } from "../fakes/telegram-refusing-redis.ts";
import {
  ALICE,
  WEBHOOK_SECRET as SECRET,
  startTelegram,
  startWebhookTelegram,
  type TelegramSetup,
  type WebhookSetup,
} from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

let setup: TelegramSetup | undefined;
let ops: OpsServer | undefined;
afterEach(async () => {
  await setup?.channel.stop();
  await setup?.pipe.close();
  await setup?.telegram.close();
  await ops?.close();
  setup = undefined;
  ops = undefined;
});

/** The bot in webhook mode, its route on the process's HTTP server. */
async function startWebhook(redisUrl?: string): Promise<WebhookSetup> {
  const started = await startWebhookTelegram(redisUrl ? { redisUrl } : {});
  setup = started;
  ops = started.ops;
  return started;
}

const answered = (telegram: FakeTelegram, count: number) =>
  until(() => (telegram.botMessages(ALICE.id).length === count ? true : undefined));

describe("the Telegram channel by webhook", () => {
  it("registers the webhook with its secret and answers an update Telegram posts", async () => {
    const { telegram, pipe, ops } = await startWebhook();
    expect(telegram.webhook).toEqual({
      url: `http://127.0.0.1:${ops.port}/telegram/updates`,
      secretToken: SECRET,
    });
    expect(telegram.callsTo("getUpdates")).toHaveLength(0);
    pipe.fake.script({ content: "over the hook" });
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hi by webhook" });
    await answered(telegram, 1);
    expect(telegram.botMessages(ALICE.id)[0]?.text).toBe("over the hook");
    expect(telegram.deliveries.filter((d) => d.updateId === update.update_id)).toMatchObject([
      { status: 200 },
    ]);
  });

  it("makes one turn of an update Telegram posts again, also while the first post is being taken", async () => {
    const { telegram, pipe } = await startWebhook();
    pipe.fake.script({ content: "once", delayMs: 300 });
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "say it once" });
    // A second post of the same update while the first is still being taken...
    const concurrent = telegram.postToWebhook(update as Update, SECRET);
    await answered(telegram, 1);
    expect([200, 500]).toContain(await concurrent);
    // ...and Telegram's retry after it was taken.
    telegram.redeliver(update as Update);
    await until(() =>
      telegram.deliveries.filter((d) => d.updateId === update.update_id).length >= 2
        ? true
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual(["once"]);
    expect(pipe.fake.requests).toHaveLength(1);
  });

  it("refuses a post with a wrong or missing secret with 401 and makes no turn", async () => {
    const { telegram, pipe } = await startWebhook();
    const forged = {
      update_id: 1,
      message: {
        message_id: 77,
        date: Math.floor(Date.now() / 1000),
        chat: { id: ALICE.id, type: "private", first_name: "Alice" },
        from: ALICE,
        text: "forged",
      },
    } as Update;
    expect(await telegram.postToWebhook(forged, "not-the-secret")).toBe(401);
    expect(await telegram.postToWebhook(forged, undefined)).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pipe.fake.requests).toHaveLength(0);
    expect(telegram.botMessages(ALICE.id)).toHaveLength(0);
  });

  it("listens on its own port when the process has no shared HTTP server", async () => {
    const telegram = await startFakeTelegram();
    setup = await startTelegram({
      telegram,
      channel: {
        webhookUrl: "http://127.0.0.1/hook",
        webhookSecret: SECRET,
        port: 0,
        host: "127.0.0.1",
      },
    });
    const port = setup.channel.webhookPort;
    expect(port).toBeGreaterThan(0);
    const hook = { url: `http://127.0.0.1:${port}/hook`, secretToken: SECRET };
    setup.pipe.fake.script({ content: "own port" });
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    // The public URL points elsewhere (a proxy in front); post where the bot listens.
    const { postUpdate } = await import("../../src/testing/fakes/telegram-updates.ts");
    expect(await postUpdate(hook, update)).toBe(200);
    await answered(telegram, 1);
    expect(await postUpdate({ ...hook, secretToken: "wrong" }, update)).toBe(401);
  });

  it("answers 500 while Redis refuses writes, so Telegram delivers the update again, and takes it once Redis is back", async () => {
    const redis = await startRefusingRedis();
    try {
      const { telegram, pipe } = await startWebhook(redis.url);
      pipe.fake.script({ content: "after the outage" });
      await redis.refuseWrites();
      const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "are you there?" });
      const tries = () => telegram.deliveries.filter((d) => d.updateId === update.update_id);
      await until(() => (tries().length >= 3 ? true : undefined));
      expect(tries().every((d) => d.status === 500)).toBe(true);
      expect(telegram.botMessages(ALICE.id)).toHaveLength(0);
      await redis.acceptWrites();
      await answered(telegram, 1);
      expect(telegram.botMessages(ALICE.id)[0]?.text).toBe("after the outage");
      expect(tries().at(-1)?.status).toBe(200);
      expect(tries().filter((d) => d.status === 200)).toHaveLength(1);
      await setup?.channel.stop();
      await setup?.pipe.close();
      await setup?.telegram.close();
      setup = undefined;
    } finally {
      await redis.stop();
    }
  }, 30_000);

  it("answers an update that fails for another reason 200 after one clear reply, so Telegram does not deliver it forever", async () => {
    const { telegram, pipe, channel } = await startWebhook();
    // Entities that are not a list: nothing in the bot can read this message.
    const poison = telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      text: "unreadable",
      extra: { entities: 42 as never },
    });
    await answered(telegram, 1);
    const [reply] = telegram.botMessages(ALICE.id);
    expect(reply?.text).toBe(SKIPPED_MESSAGE_REPLY);
    expect(reply?.reply_to_message?.message_id).toBe(poison.message?.message_id);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(telegram.deliveries.filter((d) => d.updateId === poison.update_id)).toMatchObject([
      { status: 200 },
    ]);
    expect(channel.skippedUpdates).toBe(1);
    // Delivered again anyway (Telegram lost the 200): no second reply.
    expect(await telegram.postToWebhook(poison, SECRET)).toBe(200);
    pipe.fake.script({ content: "still here" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "and this one?" });
    await answered(telegram, 2);
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual([
      SKIPPED_MESSAGE_REPLY,
      "still here",
    ]);
    expect(channel.skippedUpdates).toBe(1);
  });

  it("answers a body that is not JSON 400 and one that holds no update 200, and goes on serving", async () => {
    const { telegram, pipe, ops } = await startWebhook();
    const post = (body: string) =>
      fetch(`http://127.0.0.1:${ops.port}/telegram/updates`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body,
      }).then((r) => r.status);
    expect(await post("{not json")).toBe(400);
    for (const body of [
      "null",
      "[]",
      '"text"',
      "42",
      "{}",
      '{"update_id":"7"}',
      '{"update_id":-1}',
    ]) {
      expect(await post(body)).toBe(200);
    }
    pipe.fake.script({ content: "fine" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    await answered(telegram, 1);
    expect(telegram.botMessages(ALICE.id)[0]?.text).toBe("fine");
  });
});
