import { readFileSync } from "node:fs";
import type { Message, Update, User } from "grammy/types";
import { describe, expect, it } from "vitest";
import { FEEDBACK_REPLIES } from "../../src/ingress/feedback-desk.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { ALICE, BOB, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { settle } from "../support/slack-harness.ts";

const { start } = useTelegram();

/** The Bot API's callback_query (test/fixtures/telegram/bot-api-shapes.json), on our message. */
const PRESS = (
  JSON.parse(
    readFileSync(new URL("../fixtures/telegram/bot-api-shapes.json", import.meta.url), "utf8"),
  ) as { name: string; update: Update }[]
).find((f) => f.name === "callback_query with data no list of the bot makes")?.update as Update;

let updates = 950_000_000;

function press(from: User, message: Message, data: string): Update {
  updates += 1;
  const query = PRESS.callback_query as NonNullable<Update["callback_query"]>;
  return {
    update_id: updates,
    callback_query: { ...query, id: `2822079810${updates}`, from, message, data },
  };
}

const keysOf = (message: Message | undefined) =>
  message?.reply_markup?.inline_keyboard
    .flat()
    .map((k) => ("callback_data" in k ? [k.text, k.callback_data] : [k.text])) ?? [];

async function feedbackCounts(metrics: Metrics) {
  const metric = await metrics.registry.getSingleMetric("switchyard_feedback_total")?.get();
  const of = (vote: string) => metric?.values.find((v) => v.labels.vote === vote)?.value ?? 0;
  return { up: of("up"), down: of("down") };
}

describe("feedback on Telegram answers", () => {
  it("puts 👍 / 👎 keys under the last message of an answer only, streamed or split", async () => {
    const { telegram, pipe } = await start({ streamEditMs: 300 });
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: words, chunkDelayMs: 30 });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "stream it" });
    const streamed = await until(() =>
      telegram.botMessages(ALICE.id).find((m) => m.text === words && m.reply_markup),
    );
    // A private chat streams into a draft; the one message sent after it carries the keys.
    expect(telegram.drafts.filter((d) => d.chat === ALICE.id).length).toBeGreaterThan(0);
    expect(telegram.botMessages(ALICE.id).filter((m) => m.text === words)).toHaveLength(1);
    const keys = keysOf(streamed);
    expect(keys.map(([label]) => label)).toEqual(["👍", "👎"]);
    expect(keys[0]?.[1]).toMatch(/^fb:[a-z0-9]{12}:u$/);
    expect(keys[1]?.[1]).toMatch(/^fb:[a-z0-9]{12}:d$/);

    const long = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(16)}`,
    );
    pipe.fake.script({ content: long.join("\n\n") });
    telegram.addChat({ id: BOB.id, type: "private", title: "Bob" });
    telegram.userSends({ chat: BOB.id, from: BOB, text: "long please" });
    const parts = await until(() => {
      const sent = telegram.botMessages(BOB.id);
      return sent.some((m) => m.text?.includes("Paragraph 39")) && sent.at(-1)?.reply_markup
        ? sent
        : undefined;
    });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((m) => m.reply_markup !== undefined)).toEqual([
      ...parts.slice(1).map(() => false),
      true,
    ]);
  });

  it("records a press, replaces a changed vote, counts a redelivered press once, and keeps what was wrong", async () => {
    const metrics = new Metrics();
    const { telegram, pipe } = await start({
      pipeline: { observe: { feedback: (vote) => metrics.countFeedback(vote) } },
    });
    pipe.fake.script({ content: "The capital of Australia is Sydney." });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "capital of Australia?" });
    const answer = await until(() => telegram.botMessages(ALICE.id).find((m) => m.reply_markup));
    const [[, up], [, down]] = keysOf(answer) as [string[], string[]];
    const answerTo = (update: Update) =>
      telegram
        .callsTo("answerCallbackQuery")
        .find((c) => c.params.callback_query_id === update.callback_query?.id)?.params as
        | { text?: string; show_alert?: boolean }
        | undefined;

    const first = telegram.sendUpdate(press(ALICE, answer as Message, up as string));
    expect(await until(() => answerTo(first))).toMatchObject({
      text: FEEDBACK_REPLIES.up,
      show_alert: false,
    });
    telegram.redeliver(first);
    await settle(300);
    expect(telegram.callsTo("answerCallbackQuery")).toHaveLength(1);
    expect(await feedbackCounts(metrics)).toEqual({ up: 1, down: 0 });

    // A change of mind: the question is an alert Alice reads and dismisses.
    const second = telegram.sendUpdate(press(ALICE, answer as Message, down as string));
    expect(await until(() => answerTo(second))).toMatchObject({
      text: FEEDBACK_REPLIES.ask,
      show_alert: true,
    });
    expect(await feedbackCounts(metrics)).toEqual({ up: 1, down: 1 });

    const requests = pipe.fake.requests.length;
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "It is Canberra." });
    await until(() =>
      telegram.botMessages(ALICE.id).find((m) => m.text === FEEDBACK_REPLIES.reasonKept),
    );
    await settle(300);
    expect(pipe.fake.requests).toHaveLength(requests);
    const keys = await pipe.app.redis.keys(`${pipe.prefix}:*:feedback:*`);
    const record = keys.find((k) => !k.includes("feedback-")) as string;
    const hash = await pipe.app.redis.hgetall(record);
    expect(hash).toMatchObject({
      [`vote:telegram:${ALICE.id}`]: "down",
      [`why:telegram:${ALICE.id}`]: "It is Canberra.",
      [`name:telegram:${ALICE.id}`]: "Alice",
    });
  });

  it("answers a press on an answer whose record expired with an alert saying so", async () => {
    const { telegram, pipe } = await start();
    pipe.fake.script({ content: "Old answer." });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hi" });
    const answer = await until(() => telegram.botMessages(ALICE.id).find((m) => m.reply_markup));
    const update = telegram.sendUpdate(press(ALICE, answer as Message, "fb:k3x9q2m7p1ab:u"));
    const reply = await until(
      () =>
        telegram
          .callsTo("answerCallbackQuery")
          .find((c) => c.params.callback_query_id === update.callback_query?.id)?.params,
    );
    expect(reply).toMatchObject({ text: FEEDBACK_REPLIES.expired, show_alert: true });
  });
});
