import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { INBOUND_TEXT_LIMIT, tooLongReply } from "../../src/core/conversation.ts";
import {
  ALICE,
  BOB,
  BOT,
  WEBHOOK_SECRET as SECRET,
  TEAM,
  useTelegram,
} from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const setups = useTelegram();
const start = setups.start;

const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));
const over = "x".repeat(INBOUND_TEXT_LIMIT + 1);

describe("a Telegram message over the inbound limit", () => {
  it("is answered once, as a reply, with the reason and the limit, and never queued, also when delivered again", async () => {
    const first = await start();
    const { telegram, pipe } = first;
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: over });
    const [reply] = await until(() => {
      const sent = telegram.botMessages(ALICE.id);
      return sent.length > 0 ? sent : undefined;
    });
    expect(reply?.text).toBe(tooLongReply(INBOUND_TEXT_LIMIT + 1));
    expect(reply?.text).toContain("100,001 characters");
    expect(reply?.reply_to_message?.message_id).toBe(update.message?.message_id);
    // A crash lost the offset: Telegram delivers the update again to the next process.
    await first.channel.stop();
    await pipe.app.redis.del(`${pipe.prefix}:telegram:${BOT.id}:offset`);
    telegram.redeliver(update as Update);
    await start({ telegram, pipe });
    await until(() => (telegram.pending.length === 0 ? true : undefined));
    await settle();
    expect(telegram.botMessages(ALICE.id)).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(0);
    expect(await pipe.app.queue.queues[0]?.getJobCounts()).toMatchObject({ waiting: 0, active: 0 });
  });

  it("counts a caption as text: a photo with a caption over the limit gets the same answer", async () => {
    const { telegram, pipe } = await start();
    telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      caption: `${over}yz`,
      extra: { photo: [{ file_id: "p", file_unique_id: "p1", width: 9, height: 9 }] },
    });
    const [reply] = await until(() => {
      const sent = telegram.botMessages(ALICE.id);
      return sent.length > 0 ? sent : undefined;
    });
    expect(reply?.text).toBe(tooLongReply(INBOUND_TEXT_LIMIT + 3));
    await settle();
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("queues a text of exactly the limit", async () => {
    const { telegram, pipe } = await start();
    pipe.fake.script({ content: "read it all" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "y".repeat(INBOUND_TEXT_LIMIT) });
    await until(() => (telegram.botMessages(ALICE.id).length > 0 ? true : undefined));
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual(["read it all"]);
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toHaveLength(INBOUND_TEXT_LIMIT);
  });

  it("in a group, is answered when it is for the bot and ignored when it is not", async () => {
    const { telegram, pipe } = await start();
    telegram.userSends({ chat: TEAM, from: BOB, text: over });
    const mention = telegram.userSends({ chat: TEAM, from: BOB, text: `@${BOT.username} ${over}` });
    await until(() => (telegram.botMessages(TEAM).length > 0 ? true : undefined));
    await settle();
    const sent = telegram.botMessages(TEAM);
    expect(sent.map((m) => m.reply_to_message?.message_id)).toEqual([mention.message?.message_id]);
    expect(sent[0]?.text).toBe(tooLongReply(INBOUND_TEXT_LIMIT + 1));
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("by webhook, is answered once though Telegram posts it twice at once and again later", async () => {
    const { telegram, pipe } = await setups.startWebhook();
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: over });
    const statuses = await Promise.all([
      telegram.postToWebhook(update, SECRET),
      telegram.postToWebhook(update, SECRET),
    ]);
    await until(() => (telegram.botMessages(ALICE.id).length > 0 ? true : undefined));
    expect(await telegram.postToWebhook(update, SECRET)).toBe(200);
    await until(() => (telegram.pending.length === 0 ? true : undefined));
    await settle();
    expect(statuses.every((status) => status === 200 || status === 500)).toBe(true);
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual([
      tooLongReply(INBOUND_TEXT_LIMIT + 1),
    ]);
    expect(pipe.fake.requests).toHaveLength(0);
  });
});
