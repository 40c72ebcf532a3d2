import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ALICE } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";

const ANSWER =
  "Drafts grow word by word in a private chat, and this answer is long enough to show several of them before it ends.";

let model: FakeOpenAI | undefined;
let telegram: FakeTelegram | undefined;
let crash: CrashWorkers | undefined;
afterEach(async () => {
  await crash?.close("SIGKILL");
  await model?.close();
  await telegram?.close();
  crash = model = telegram = undefined;
});

/** Alice's message in her private chat, as the ingress queues it. */
function aliceAsks(fake: FakeTelegram): InboundMessage {
  const sent = fake.userSends({
    chat: ALICE.id,
    from: ALICE,
    text: "tell me about drafts",
  }).message;
  const chat = String(ALICE.id);
  return {
    platform: "telegram",
    workspace: chat,
    channel: chat,
    conversation: chat,
    user: chat,
    text: "tell me about drafts",
    attachments: [],
    eventId: `${chat}:${sent?.message_id}`,
    messageRef: String(sent?.message_id),
    time: Date.now(),
  };
}

/** Waits until nothing is queued and no turn runs: from then on nothing can send or draft. */
async function atRest(workers: CrashWorkers, message: InboundMessage): Promise<void> {
  const inbox = new Inbox(workers.redis, workers.store.keys);
  const deadline = Date.now() + 15_000;
  while (!(await inbox.idle(message))) {
    if (Date.now() > deadline) throw new Error("the conversation never came to rest");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a Telegram worker killed while a private chat's answer streams as a draft", () => {
  it("leaves no partial message: the resumed worker streams on into the same draft and sends the answer once", async () => {
    let asked = 0;
    // The first run streams slowly and is killed mid-way; the resumed one streams quickly enough to draft again.
    model = await startFakeOpenAI({
      responder: () => ({ content: ANSWER, chunkDelayMs: ++asked === 1 ? 400 : 120 }),
    });
    telegram = await startFakeTelegram();
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    crash = await startCrashWorkers(model, uniquePrefix("crash-drafts"), {
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
    });
    const fake = telegram;
    const message = aliceAsks(fake);
    await crash.enqueue(message);

    // Killed once a draft shows part of the answer.
    const partial = await until(
      () => fake.drafts.find((d) => d.chat === ALICE.id && d.text !== "" && d.text !== ANSWER),
      20_000,
    );
    await crash.killLeaseHolder(message);
    const before = fake.drafts.length;
    const answer = await until(
      () => fake.botMessages(ALICE.id).find((m) => m.text === ANSWER),
      30_000,
    );
    await atRest(crash, message);

    expect(asked).toBe(2);
    // One message, the whole answer, a reply to Alice's; nothing was edited, since no partial was ever a message.
    expect(fake.botMessages(ALICE.id)).toEqual([answer]);
    expect(answer.reply_to_message?.message_id).toBe(Number(message.messageRef));
    expect(fake.callsTo("editMessageText")).toHaveLength(0);
    // The resumed run drafted too, into the draft the killed run had begun.
    const resumed = fake.drafts.slice(before).filter((d) => d.chat === ALICE.id);
    expect(resumed.length).toBeGreaterThan(0);
    expect(new Set(fake.drafts.map((d) => d.draft_id))).toEqual(new Set([partial.draft_id]));
  }, 120_000);
});
