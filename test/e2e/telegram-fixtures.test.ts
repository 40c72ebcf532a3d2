/**
 * Telegram payloads in real and odd shapes (test/fixtures/telegram, see its README)
 * replayed through the real long-polling loop and the real webhook against
 * the fake Bot API: nothing crashes, taking goes on, and each update is
 * answered once, queued once (one turn), or left alone, as it should be.
 * Then arbitrary JSON, as a fast-check property: no update ends the
 * process or wedges the bot.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import type { Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeChat } from "../../src/testing/fakes/telegram-api.ts";
import {
  ALICE,
  WEBHOOK_SECRET as SECRET,
  startTelegram,
  startWebhookTelegram,
  type TelegramSetup,
  type WebhookSetup,
} from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

/** What a person sees of an update: a turn's answer, a command's, a press answered, nothing, or a skip. */
type Expect = "turn" | "command" | "press" | "none" | "skipped";

interface Fixture {
  readonly name: string;
  readonly expect: Expect;
  readonly update: Update;
}

const FILES = ["bot-api-webhooks-guide.json", "grammy-test-suite.json", "bot-api-shapes.json"];
const FIXTURES: Fixture[] = FILES.flatMap(
  (file) =>
    JSON.parse(
      readFileSync(new URL(`../fixtures/telegram/${file}`, import.meta.url), "utf8"),
    ) as Fixture[],
).sort((a, b) => a.update.update_id - b.update.update_id);

type Loose = Record<string, unknown> & {
  chat?: { id?: unknown; type?: unknown; title?: string; is_forum?: boolean };
  message_id?: unknown;
  message?: Loose;
  id?: unknown;
};

const messageOf = (update: Update) => (update as unknown as { message?: Loose }).message;
const queryOf = (update: Update) =>
  (update as unknown as { callback_query?: Loose }).callback_query;

/** Every chat the fixtures are in exists in the fake, so the bot can answer there. */
function addChats(s: TelegramSetup): void {
  const seen = new Set<number>();
  for (const { update } of FIXTURES) {
    for (const body of Object.values(update as unknown as Record<string, Loose>)) {
      for (const chat of [body?.chat, body?.message?.chat]) {
        if (typeof chat?.id !== "number" || seen.has(chat.id)) continue;
        seen.add(chat.id);
        s.telegram.addChat({
          id: chat.id,
          type: (typeof chat.type === "string" ? chat.type : "private") as FakeChat["type"],
          ...(chat.title ? { title: chat.title } : {}),
          ...(chat.is_forum ? { is_forum: true } : {}),
        });
      }
    }
  }
}

/** The bot's replies to a fixture's message. */
function repliesTo(s: TelegramSetup, update: Update) {
  const message = messageOf(update);
  if (typeof message?.chat?.id !== "number") return [];
  return s.telegram
    .botMessages(message.chat.id)
    .filter((m) => m.reply_to_message?.message_id === message.message_id);
}

const answersTo = (s: TelegramSetup, update: Update) =>
  s.telegram
    .callsTo("answerCallbackQuery")
    .filter((c) => c.params.callback_query_id === queryOf(update)?.id && c.status === 200);

/** Whether the fixture's answer is in (for those that get one). */
function answered(s: TelegramSetup, { expect: kind, update }: Fixture): boolean {
  if (kind === "turn") return repliesTo(s, update).some((m) => m.text?.startsWith("echo:"));
  if (kind === "command") return repliesTo(s, update).length > 0;
  if (kind === "press") return answersTo(s, update).length > 0;
  return true;
}

/** Replays every fixture, one after the other, each answered before the next. */
async function replay(s: TelegramSetup): Promise<void> {
  for (const fixture of FIXTURES) {
    s.telegram.sendUpdate(fixture.update);
    await until(() => (answered(s, fixture) ? true : undefined)).catch(() => {
      throw new Error(
        `no ${fixture.expect} for "${fixture.name}"; warnings: ${s.warnings.join("\n")}`,
      );
    });
  }
  await until(() => (s.telegram.pending.length === 0 ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

/** After the replay: each answered once, the rest left alone, the skips counted. */
function checkOnce(s: TelegramSetup): void {
  const turns = FIXTURES.filter((f) => f.expect === "turn");
  for (const fixture of FIXTURES) {
    const { expect: kind, update, name } = fixture;
    if (kind === "turn" || kind === "command") {
      expect(repliesTo(s, update), name).toHaveLength(1);
    }
    if (kind === "press") expect(answersTo(s, update), name).toHaveLength(1);
    if ((kind === "none" || kind === "skipped") && queryOf(update)) {
      expect(answersTo(s, update), name).toHaveLength(0);
    }
  }
  expect(s.pipe.fake.requests).toHaveLength(turns.length);
  const replies = FIXTURES.filter((f) => f.expect === "turn" || f.expect === "command").length;
  expect(s.telegram.messages.filter((m) => m.from?.id === 7000000001)).toHaveLength(replies);
  expect(s.channel.skippedUpdates).toBe(FIXTURES.filter((f) => f.expect === "skipped").length);
  expect(s.telegram.pending).toHaveLength(0);
}

/** Updates of any shape: known kinds and made-up ones, bodies from message-like to any JSON. */
const anyUpdateBody = (() => {
  const chat = fc.record(
    {
      id: fc.oneof(fc.integer(), fc.constant(ALICE.id), fc.string()),
      type: fc.oneof(fc.constantFrom("private", "group", "supergroup", "channel"), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const entity = fc.record(
    {
      type: fc.oneof(fc.constantFrom("mention", "bot_command", "text_mention"), fc.string()),
      offset: fc.oneof(fc.integer({ min: -5, max: 60 }), fc.jsonValue()),
      length: fc.oneof(fc.integer({ min: -5, max: 60 }), fc.jsonValue()),
      user: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  const messageish = fc.record(
    {
      message_id: fc.oneof(fc.nat(), fc.jsonValue()),
      date: fc.oneof(fc.nat(), fc.constant(0), fc.jsonValue()),
      chat: fc.oneof(chat, fc.jsonValue()),
      from: fc.oneof(fc.constant(ALICE), fc.jsonValue()),
      sender_chat: fc.oneof(chat, fc.jsonValue()),
      text: fc.oneof(fc.string(), fc.constant("/tools"), fc.constant("/start"), fc.jsonValue()),
      caption: fc.oneof(fc.string(), fc.jsonValue()),
      entities: fc.oneof(fc.array(entity, { maxLength: 3 }), fc.jsonValue()),
      photo: fc.jsonValue(),
      is_topic_message: fc.jsonValue(),
      message_thread_id: fc.jsonValue(),
      reply_to_message: fc.jsonValue(),
      id: fc.oneof(fc.string(), fc.jsonValue()),
      data: fc.oneof(fc.string(), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(messageish, fc.record({ message: messageish }), fc.jsonValue());
  const kind = fc.oneof(
    fc.constantFrom("message", "callback_query", "edited_message", "channel_post", "inline_query"),
    fc.string(),
  );
  return fc.tuple(kind, body, fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }));
})();

let nextFuzzId = 5_000_000_000_000_000;

/** Sends arbitrary updates, then a plain message that must still be answered. */
async function fuzz(s: TelegramSetup): Promise<void> {
  await fc.assert(
    fc.asyncProperty(anyUpdateBody, async ([kind, body, extra]) => {
      s.telegram.sendUpdate({ ...extra, [kind]: body, update_id: nextFuzzId++ } as Update);
      const sentinel = s.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "still there?" });
      await until(() =>
        s.telegram
          .botMessages(ALICE.id)
          .some((m) => m.reply_to_message?.message_id === sentinel.message?.message_id)
          ? true
          : undefined,
      );
    }),
    { numRuns: 15 },
  );
  expect(s.telegram.pending).toHaveLength(0);
}

describe("Telegram payloads by long polling", () => {
  let s: TelegramSetup;
  beforeAll(async () => {
    s = await startTelegram();
    addChats(s);
  });
  afterAll(async () => {
    await s?.channel.stop();
    await s?.pipe.close();
    await s?.telegram.close();
  });

  it("answers, queues or leaves alone each real and odd payload, once, and keeps polling", async () => {
    await replay(s);
    checkOnce(s);
  }, 120_000);

  it("never ends or wedges on an update of any shape", async () => {
    await fuzz(s);
  }, 120_000);
});

describe("Telegram payloads by webhook", () => {
  let s: WebhookSetup;
  beforeAll(async () => {
    s = await startWebhookTelegram();
    addChats(s);
  });
  afterAll(async () => {
    await s?.channel.stop();
    await s?.pipe.close();
    await s?.telegram.close();
    await s?.ops.close();
  });

  it("answers each real and odd payload 200 once, after answering, queueing or leaving it alone", async () => {
    await replay(s);
    checkOnce(s);
    for (const { update, name } of FIXTURES) {
      const deliveries = s.telegram.deliveries.filter((d) => d.updateId === update.update_id);
      expect(
        deliveries.map((d) => d.status),
        name,
      ).toEqual([200]);
    }
  }, 120_000);

  it("never ends or wedges on an update of any shape, nor answers one 500 forever", async () => {
    await fuzz(s);
    const post = (body: string) =>
      fetch(`http://127.0.0.1:${s.ops.port}/telegram/updates`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body,
      }).then((r) => r.status);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (json) => {
        expect(await post(JSON.stringify(json))).toBe(200);
      }),
      { numRuns: 50 },
    );
  }, 120_000);
});
