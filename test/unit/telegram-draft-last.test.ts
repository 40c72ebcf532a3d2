import type { Api } from "grammy";
import { describe, expect, it } from "vitest";
import { ChatPacer } from "../../src/platforms/telegram/chat-pacer.ts";
import { SHOW_LAST_AFTER_MS, TelegramDrafts } from "../../src/platforms/telegram/draft.ts";
import { SendPacer } from "../../src/platforms/telegram/send-pacer.ts";

const TARGET = { platform: "telegram", workspace: "7", channel: "7", conversation: "7" };

/** An answer's draft stream in a private chat whose message would wait `waitMs` for the bot's pace. */
async function streamWaiting(waitMs: number) {
  const api = { sendMessageDraft: async () => true } as unknown as Api;
  const drafts = new TelegramDrafts(
    () => api,
    new ChatPacer(1_000),
    (text) => text,
    () => "native",
    undefined,
    () => waitMs,
  );
  const stream = await drafts.open(TARGET, { key: "turn-1:0" });
  if (!stream?.showLast) throw new Error("a private chat's answer streams into a draft");
  return stream.showLast;
}

describe("the last draft of an answer whose message waits for the bot's pace", () => {
  it("shows the whole answer when the message will wait long enough to matter", async () => {
    expect((await streamWaiting(SHOW_LAST_AFTER_MS))()).toBe(true);
    expect((await streamWaiting(5_000))()).toBe(true);
  });

  it("is not sent when the message follows within moments: a render and a call for nothing", async () => {
    expect((await streamWaiting(0))()).toBe(false);
    // One message ahead at a paid broadcast's pace is a millisecond, not a reason to draft.
    expect((await streamWaiting(SHOW_LAST_AFTER_MS - 1))()).toBe(false);
  });

  it("reads the wait from the sends waiting ahead, at the pace", async () => {
    const pacer = new SendPacer(
      { perSecond: 25, burst: 1 },
      { now: () => 0, after: () => undefined },
    );
    expect(pacer.waitMs).toBe(0);
    // The first goes at once (the burst); ten more wait, a twenty-fifth of a second each.
    for (let i = 0; i < 11; i++) pacer.request("post", () => {});
    expect(pacer.waitMs).toBe(400);
  });
});
