import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { DEFAULT_TELEGRAM } from "../../src/platforms/telegram/config-section.ts";
import { SKIPPED_MESSAGE_REPLY } from "../../src/platforms/telegram/skipped-update.ts";
import { ADA, ALICE, BOB, BOT, TEAM, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const { start } = useTelegram();

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe("the Telegram channel on a real grammY bot, by long polling", () => {
  it("answers a private message once, as a reply to it, typing while the turn runs", async () => {
    const { telegram, pipe } = await start();
    pipe.fake.script({ content: "Hello from **Switchyard**." });
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello there" });
    const [reply] = await until(() => {
      const sent = telegram.botMessages(ALICE.id);
      return sent.length > 0 ? sent : undefined;
    });
    expect(reply?.text).toBe("Hello from Switchyard.");
    expect(reply?.entities).toEqual([{ type: "bold", offset: 11, length: 10 }]);
    expect(reply?.reply_to_message?.message_id).toBe(update.message?.message_id);
    await settle();
    expect(telegram.botMessages(ALICE.id)).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(1);
    expect(pipe.fake.requests[0]?.body.messages.at(-1)).toMatchObject({
      role: "user",
      content: "hello there",
      name: "Alice",
    });
    expect(telegram.callsTo("sendChatAction").some((c) => c.params.action === "typing")).toBe(true);
  });

  it("takes the largest photo size by file id, and names a file Telegram will not hand over with why", async () => {
    const { telegram, pipe } = await start();
    pipe.fake.script({ content: "Got them." });
    telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      caption: "what is in these?",
      extra: {
        photo: [
          { file_id: "small-photo", file_unique_id: "p1", width: 90, height: 90 },
          { file_id: "big-photo", file_unique_id: "p2", width: 1280, height: 960, file_size: 2048 },
        ],
      },
    });
    await until(() => (telegram.botMessages(ALICE.id).length ? true : undefined));
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toBe(
      "what is in these?\n\n[file: photo-p2.jpg (image/jpeg, 2 KB)]\n(it could not be fetched: Telegram's getFile failed (Call to 'getFile' failed! (400: Bad Request: invalid file_id)))",
    );
  });

  it("in a forum group, ignores talk not meant for it and answers a mention in its topic", async () => {
    const { telegram, pipe } = await start();
    const topic = telegram.createTopic(TEAM, "Planning", ADA);
    pipe.fake.script({ content: "Here is the plan." }, { content: "And a follow-up." });
    telegram.userSends({ chat: TEAM, from: BOB, text: "just chatting", topic });
    const mention = telegram.userSends({
      chat: TEAM,
      from: BOB,
      text: `@${BOT.username} what is the plan?`,
      topic,
    });
    const [reply] = await until(() => {
      const sent = telegram.botMessages(TEAM);
      return sent.length > 0 ? sent : undefined;
    });
    expect(reply?.text).toBe("Here is the plan.");
    expect(reply?.message_thread_id).toBe(topic);
    expect(reply?.reply_to_message?.message_id).toBe(mention.message?.message_id);
    expect(pipe.fake.requests).toHaveLength(1);
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toBe("what is the plan?");

    // A reply to the bot's message is for it, without a mention.
    telegram.userSends({
      chat: TEAM,
      from: ADA,
      text: "and then?",
      topic,
      replyTo: reply?.message_id as number,
    });
    await until(() => (telegram.botMessages(TEAM).length === 2 ? true : undefined));
    expect(telegram.botMessages(TEAM, topic).map((m) => m.text)).toEqual([
      "Here is the plan.",
      "And a follow-up.",
    ]);
    // The same topic is one conversation: the follow-up's request carries the first exchange.
    const history = pipe.fake.requests[1]?.body.messages.map((m: { content: string }) => m.content);
    expect(history).toContain("what is the plan?");
    await settle();
    expect(pipe.fake.requests).toHaveLength(2);
  });

  it("splits a 9,000-character answer into three messages, each valid HTML and within 4,096", async () => {
    const { telegram, pipe } = await start();
    const paragraphs = Array.from(
      { length: 36 },
      (_, i) =>
        `Paragraph **${i}** compares \`a<b\` & \`c>d\`: ${"the quick brown fox ".repeat(11)}`,
    );
    const answer = paragraphs.join("\n\n");
    expect(answer.length).toBeGreaterThan(9_000);
    expect(answer.length).toBeLessThan(10_000);
    pipe.fake.script({ content: answer });
    const update = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "a long one please" });
    const sent = await until(() => {
      const all = telegram.botMessages(ALICE.id);
      return all.some((m) => m.text?.includes("Paragraph 35")) ? all : undefined;
    });
    expect(sent).toHaveLength(3);
    for (const message of sent) {
      expect((message.text ?? "").length).toBeLessThanOrEqual(4_096);
      // The fake parsed the HTML as Telegram does: bold and code came through as entities.
      expect(message.entities?.some((e) => e.type === "bold")).toBe(true);
      expect(message.entities?.some((e) => e.type === "code")).toBe(true);
      expect(message.reply_to_message?.message_id).toBe(update.message?.message_id);
    }
    const shown = sent.map((m) => m.text).join("\n\n");
    for (let i = 0; i < paragraphs.length; i++) {
      expect(shown).toContain(`Paragraph ${i} compares a<b & c>d:`);
    }
  });

  it("waits out a 429's retry_after and delivers the answer once", async () => {
    const { telegram, pipe } = await start();
    telegram.failNext("sendMessage", {
      code: 429,
      description: "Too Many Requests: retry after 1",
      retryAfter: 1,
    });
    pipe.fake.script({ content: "patience pays" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hi" });
    await until(() => (telegram.botMessages(ALICE.id).length ? true : undefined));
    const attempts = telegram.callsTo("sendMessage").map((c) => c.status);
    expect(attempts).toEqual([429, 200]);
    const [first, second] = telegram.callsTo("sendMessage");
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual(["patience pays"]);
  });

  it("streams an answer by editing one message, which ends as the whole answer", async () => {
    // Private chats stream as drafts by default (telegram-drafts.test.ts); this is the edit path.
    const { telegram, pipe } = await start({
      streamEditMs: 300,
      channel: { settings: () => ({ ...DEFAULT_TELEGRAM, streaming: "edit" }) },
    });
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: `**Stream:** ${answer}`, chunkDelayMs: 40 });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "stream it" });
    const message = await until(() =>
      telegram.botMessages(ALICE.id).find((m) => m.text === `Stream: ${answer}`),
    );
    expect(telegram.botMessages(ALICE.id)).toHaveLength(1);
    expect(message.edits ?? 0).toBeGreaterThan(0);
    expect(message.entities).toEqual([{ type: "bold", offset: 0, length: 7 }]);
  });
});

describe("an update nothing can read", () => {
  it("gets one reply saying so, is skipped and counted, and the chat goes on; in a group, only when it was for the bot", async () => {
    const { telegram, pipe, channel, warnings } = await start();
    const unreadable = { entities: 42 as never };
    const private1 = telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      text: "x",
      extra: unreadable,
    });
    pipe.fake.script({ content: "next one fine" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "and now?" });
    await until(() => (telegram.botMessages(ALICE.id).length === 2 ? true : undefined));
    const [sorry, next] = telegram.botMessages(ALICE.id);
    expect(sorry?.text).toBe(SKIPPED_MESSAGE_REPLY);
    expect(sorry?.reply_to_message?.message_id).toBe(private1.message?.message_id);
    expect(next?.text).toBe("next one fine");
    // In a group: one that cannot even be read for whom it is stays silent; one for the bot is told.
    telegram.userSends({ chat: TEAM, from: BOB, text: "chatter", extra: unreadable });
    telegram.userSends({
      chat: TEAM,
      from: BOB,
      text: `@${BOT.username} look`,
      extra: { sender_chat: 42 as never },
    });
    await until(() => (telegram.botMessages(TEAM).length === 1 ? true : undefined));
    await settle();
    expect(telegram.botMessages(TEAM).map((m) => m.text)).toEqual([SKIPPED_MESSAGE_REPLY]);
    expect(channel.skippedUpdates).toBe(3);
    expect(warnings.filter((w) => w.includes("it is skipped"))).toHaveLength(3);
    expect(telegram.pending).toHaveLength(0);
  });
});

describe("a restart of the polling bot", () => {
  it("resumes from the stored offset: messages sent while it was down are answered, none twice", async () => {
    const first = await start();
    first.pipe.fake.script({ content: "one" }, { content: "two" }, { content: "three" });
    const one = first.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "first" });
    await until(() => (first.telegram.botMessages(ALICE.id).length === 1 ? true : undefined));
    // Wait for the poll after it, which confirms it to Telegram.
    await until(() =>
      first.telegram
        .callsTo("getUpdates")
        .some((c) => Number(c.params.offset) === (one.update_id as number) + 1)
        ? true
        : undefined,
    );
    await first.channel.stop();

    first.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "second" });
    first.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "third" });
    const polls = first.telegram.callsTo("getUpdates").length;
    const second = await start({ telegram: first.telegram, pipe: first.pipe });
    await until(() => (second.telegram.botMessages(ALICE.id).length === 3 ? true : undefined));
    const resumed = second.telegram.callsTo("getUpdates")[polls];
    expect(Number(resumed?.params.offset)).toBe((one.update_id as number) + 1);
    await settle();
    expect(second.telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual([
      "one",
      "two",
      "three",
    ]);
    expect(first.pipe.fake.requests).toHaveLength(3);
  });

  it("does not answer an update twice when a crash lost its offset and Telegram delivers it again", async () => {
    const first = await start();
    first.pipe.fake.script({ content: "only once" });
    const update = first.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    await until(() => (first.telegram.botMessages(ALICE.id).length === 1 ? true : undefined));
    await first.channel.stop();
    // The crash: the offset write never happened, and Telegram never saw the confirmation.
    await first.pipe.app.redis.del(`${first.pipe.prefix}:telegram:${BOT.id}:offset`);
    first.telegram.redeliver(update as Update);

    const second = await start({ telegram: first.telegram, pipe: first.pipe });
    await until(() =>
      second.telegram
        .callsTo("getUpdates")
        .some((c) => Number(c.params.offset) === (update.update_id as number) + 1)
        ? true
        : undefined,
    );
    await settle();
    expect(second.telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual(["only once"]);
    expect(first.pipe.fake.requests).toHaveLength(1);
  });
});

describe("Telegram HTML from the model's markdown", () => {
  it("arrives as entities, with the model's <, > and & shown as written", async () => {
    const { telegram, pipe } = await start();
    pipe.fake.script({
      content:
        "## Steps\n1. Run `x < y && z > 0`\n2. See [docs](https://example.com/a?b=1&c=2)\n\n```ts\nif (a<b) {}\n```",
    });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "how?" });
    const [reply] = await until(() => {
      const sent = telegram.botMessages(ALICE.id);
      return sent.length ? sent : undefined;
    });
    expect(reply?.text).toBe("Steps\n\n1. Run x < y && z > 0\n2. See docs\n\nif (a<b) {}");
    expect(reply?.entities?.map((e) => e.type)).toEqual(["bold", "code", "text_link", "pre"]);
    expect(reply?.entities?.find((e) => e.type === "text_link")).toMatchObject({
      url: "https://example.com/a?b=1&c=2",
    });
    expect(reply?.entities?.find((e) => e.type === "pre")).toMatchObject({ language: "ts" });
  });
});
