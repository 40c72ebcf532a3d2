import { describe, expect, it } from "vitest";
import { DEFAULT_TELEGRAM } from "../../src/platforms/telegram/config-section.ts";
import { draftIdOf } from "../../src/platforms/telegram/draft.ts";
import { ALICE, BOB, BOT, TEAM, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const { start } = useTelegram();

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");

describe("Telegram answers stream as drafts in private chats", () => {
  it("streams into one draft, then posts the whole answer once; the draft is never a message", async () => {
    const { telegram, pipe } = await start({ streamEditMs: 300 });
    pipe.fake.script({ content: `**Stream:** ${answer}`, chunkDelayMs: 40 });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "stream it" });
    const message = await until(() =>
      telegram.botMessages(ALICE.id).find((m) => m.text === `Stream: ${answer}`),
    );
    await settle();
    const drafts = telegram.drafts.filter((d) => d.chat === ALICE.id);
    expect(drafts.length).toBeGreaterThan(1);
    // One draft, by one id, growing toward the answer.
    expect(new Set(drafts.map((d) => d.draft_id)).size).toBe(1);
    expect(drafts.at(-1)?.text.startsWith("Stream: word0")).toBe(true);
    // The answer is one message, sent once and never edited.
    expect(telegram.botMessages(ALICE.id)).toHaveLength(1);
    expect(telegram.callsTo("sendMessage")).toHaveLength(1);
    expect(telegram.callsTo("editMessageText")).toHaveLength(0);
    expect(message.edits ?? 0).toBe(0);
    expect(message.entities).toEqual([{ type: "bold", offset: 0, length: 7 }]);
  });

  it("types only until the draft shows: no chat action while the draft grows", async () => {
    const { telegram, pipe } = await start({ streamEditMs: 300 });
    // About 6 s of streaming: a typing refresh (every 4 s) would fall due in it.
    pipe.fake.script({ content: answer, chunkDelayMs: 150 });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "stream it slowly" });
    await until(() => telegram.botMessages(ALICE.id).find((m) => m.text === answer), 20_000);
    await settle();
    const drafts = telegram.callsTo("sendMessageDraft");
    const actions = telegram.callsTo("sendChatAction");
    expect(drafts.length).toBeGreaterThan(3);
    // Typing while the turn thinks, then the draft alone shows the answer coming.
    expect(actions).toHaveLength(1);
    expect(actions[0]?.at).toBeLessThanOrEqual(drafts[0]?.at ?? 0);
  }, 30_000);

  it("streams the first words into the draft at once, without waiting for the quiet window", async () => {
    const windowMs = 3_000;
    const { telegram, pipe } = await start({
      streamEditMs: 300,
      pipeline: { queueBehaviour: () => ({ mode: "collect", debounceMs: windowMs }) },
    });
    pipe.fake.script({ content: answer, chunkDelayMs: 40 });
    const sent = Date.now();
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "stream it" });
    const first = await until(() => telegram.drafts.find((d) => d.chat === ALICE.id));
    // A draft is no message: the words show while the window is still open, not after it.
    expect(first.at - sent).toBeLessThan(windowMs / 2);
    await until(() => telegram.botMessages(ALICE.id).find((m) => m.text === answer), 20_000);
    await settle();
    expect(telegram.botMessages(ALICE.id)).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(1);
  }, 30_000);

  it("streams a burst's answer over the first line's draft: one message, answering every line", async () => {
    const { telegram, pipe } = await start({
      streamEditMs: 300,
      pipeline: { queueBehaviour: () => ({ mode: "collect", debounceMs: 3_000 }) },
    });
    pipe.fake.script(
      { content: `first ${answer}`, chunkDelayMs: 100 },
      { content: "one answer for both", chunkDelayMs: 10 },
    );
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "so" });
    await until(() => telegram.drafts.find((d) => d.chat === ALICE.id));
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "is the deploy done?" });
    await until(() => telegram.botMessages(ALICE.id).find((m) => m.text === "one answer for both"));
    await settle();
    // The first line's request was dropped for the one with both lines; its draft was no message.
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual(["one answer for both"]);
    expect(pipe.fake.requests).toHaveLength(2);
    expect(pipe.fake.requests[0]?.closedEarly).toBe(true);
    const drafts = telegram.drafts.filter((d) => d.chat === ALICE.id);
    expect(new Set(drafts.map((d) => d.draft_id)).size).toBe(1);
  }, 30_000);

  it("streams by edits in a forum topic, where drafts do not apply", async () => {
    const { telegram, pipe } = await start({ streamEditMs: 300 });
    const topic = telegram.createTopic(TEAM, "Planning", BOB);
    pipe.fake.script({ content: answer, chunkDelayMs: 40 });
    telegram.userSends({
      chat: TEAM,
      from: BOB,
      text: `@${BOT.username} stream it`,
      topic,
    });
    const message = await until(() =>
      telegram.botMessages(TEAM, topic).find((m) => m.text === answer),
    );
    await settle();
    expect(telegram.drafts).toHaveLength(0);
    expect(telegram.botMessages(TEAM, topic)).toHaveLength(1);
    expect(message.edits ?? 0).toBeGreaterThan(0);
  });

  it("streams by edits in private chats too when the setting says streaming: edit", async () => {
    const { telegram, pipe } = await start({
      streamEditMs: 300,
      channel: { settings: () => ({ ...DEFAULT_TELEGRAM, streaming: "edit" }) },
    });
    pipe.fake.script({ content: answer, chunkDelayMs: 40 });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "stream it" });
    await until(() => telegram.botMessages(ALICE.id).find((m) => m.text === answer));
    await settle();
    expect(telegram.drafts).toHaveLength(0);
    expect(telegram.callsTo("editMessageText").length).toBeGreaterThan(0);
  });

  it("refuses drafts as the Bot API does: not in groups, not with draft_id 0", async () => {
    const { telegram, channel } = await start();
    await expect(channel.api.sendMessageDraft(TEAM, 5, "hi")).rejects.toThrow(/private chats/);
    await expect(channel.api.sendMessageDraft(ALICE.id, 0, "hi")).rejects.toThrow(/draft_id/);
    await channel.api.sendMessageDraft(ALICE.id, draftIdOf("turn-0"), "");
    expect(telegram.drafts).toEqual([
      expect.objectContaining({ chat: ALICE.id, draft_id: draftIdOf("turn-0"), text: "" }),
    ]);
    expect(telegram.botMessages(ALICE.id)).toHaveLength(0);
  });

  it("measures Telegram messages and calls per streamed answer, drafts against edits", async () => {
    const runs: Record<string, string> = {};
    for (const streaming of ["native", "edit"] as const) {
      const { telegram, pipe } = await start({
        streamEditMs: 1_000,
        channel: { settings: () => ({ ...DEFAULT_TELEGRAM, streaming }) },
      });
      const long = `${"lorem ipsum ".repeat(166)}end.`;
      pipe.fake.script({ content: long, contentChunkChars: 50, chunkDelayMs: 100 });
      telegram.userSends({ chat: ALICE.id, from: ALICE, text: "go long" });
      await until(
        () => telegram.botMessages(ALICE.id).find((m) => m.text?.endsWith("end.")),
        20_000,
      );
      await settle();
      expect(telegram.botMessages(ALICE.id)).toHaveLength(1);
      const count = (m: string) => telegram.callsTo(m).length;
      runs[streaming] =
        `${telegram.botMessages(ALICE.id).length} message, sendMessage ${count("sendMessage")}, editMessageText ${count("editMessageText")}, sendMessageDraft ${count("sendMessageDraft")}`;
    }
    console.log(`telegram 2,000-character answer: drafts: ${runs.native}; edits: ${runs.edit}`);
  }, 60_000);
});
