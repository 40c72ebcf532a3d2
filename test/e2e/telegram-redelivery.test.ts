/**
 * Every command path answers once however often Telegram delivers it:
 * typed commands (bare, `@bot`-addressed, refused), skill commands that go
 * to the model, and presses on the lists' buttons, each under two webhook
 * posts at once plus Telegram's retry, and under a poll that sees the update
 * again after a crash lost the offset. The update ledger is what holds this.
 */
import type { InlineKeyboardButton, Message, Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import type { StoredMessage } from "../../src/testing/fakes/telegram-api.ts";
import {
  ADA,
  ALICE,
  BOB,
  BOT,
  WEBHOOK_SECRET as SECRET,
  startTelegram,
  TEAM,
  type TelegramSetup,
  useTelegram,
} from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const setups = useTelegram();

const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bot's replies to one message. */
const repliesTo = (s: TelegramSetup, update: Update) =>
  s.telegram
    .botMessages(update.message?.chat.id as number)
    .filter((m) => m.reply_to_message?.message_id === update.message?.message_id);

/** The bot's message a pattern matches, once it is there. */
const botSays = (s: TelegramSetup, chat: number, pattern: RegExp) =>
  until(() => s.telegram.botMessages(chat).find((m) => pattern.test(m.text ?? "")));

function button(message: StoredMessage, text: string): string {
  const found = (message.reply_markup?.inline_keyboard ?? []).flat().find((b) => b.text === text) as
    | InlineKeyboardButton.CallbackButton
    | undefined;
  if (!found) throw new Error(`no button ${text}`);
  return found.callback_data;
}

interface CommandKind {
  readonly name: string;
  /** Does what comes first (a list to press on); returns the update under test, once sent. */
  act(s: TelegramSetup): Promise<Update>;
  /** Whether the person has had the answer. */
  answered(s: TelegramSetup, update: Update): boolean;
  /** After every redelivery: exactly one answer, one effect. */
  once(s: TelegramSetup, update: Update): void;
}

/** A typed command answered on the spot: one reply matching `reply`, and no turn. */
function typed(name: string, chat: number, from: typeof ALICE, text: string, reply: RegExp) {
  return {
    name,
    act: async (s: TelegramSetup) => s.telegram.userSends({ chat, from, text }),
    answered: (s: TelegramSetup, update: Update) => repliesTo(s, update).length > 0,
    once: (s: TelegramSetup, update: Update) => {
      const replies = repliesTo(s, update);
      expect(replies).toHaveLength(1);
      expect(replies[0]?.text).toMatch(reply);
      expect(s.pipe.fake.requests).toHaveLength(0);
    },
  } satisfies CommandKind;
}

/** A command that goes to the model: one turn, one answer. */
function toModel(name: string, text: string, prompt: RegExp) {
  return {
    name,
    act: async (s: TelegramSetup) => {
      s.pipe.fake.script({ content: `answer to ${name}` });
      return s.telegram.userSends({ chat: ALICE.id, from: ALICE, text });
    },
    answered: (s: TelegramSetup, update: Update) => repliesTo(s, update).length > 0,
    once: (s: TelegramSetup, update: Update) => {
      expect(repliesTo(s, update).map((m) => m.text)).toEqual([`answer to ${name}`]);
      expect(s.pipe.fake.requests).toHaveLength(1);
      expect(s.pipe.fake.requests[0]?.body.messages.at(-1).content).toMatch(prompt);
    },
  } satisfies CommandKind;
}

/** A press on a button of the /tools list: one answer to the query, one edit of the list. */
function press(name: string, label: string, after: RegExp) {
  let list: StoredMessage | undefined;
  return {
    name,
    act: async (s: TelegramSetup) => {
      s.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/tools" });
      list = await botSays(s, ALICE.id, /tools available/);
      await until(() => (s.telegram.pending.length === 0 ? true : undefined));
      return s.telegram.pressButton({
        from: ALICE,
        message: list as Message,
        data: button(list, label),
      });
    },
    answered: (s: TelegramSetup) =>
      s.telegram.botMessages(ALICE.id).some((m) => m.message_id === list?.message_id && m.edits),
    once: (s: TelegramSetup, update: Update) => {
      const id = update.callback_query?.id;
      const answers = s.telegram
        .callsTo("answerCallbackQuery")
        .filter((c) => c.params.callback_query_id === id);
      expect(answers.map((c) => c.status)).toEqual([200]);
      const edited = s.telegram
        .botMessages(ALICE.id)
        .find((m) => m.message_id === list?.message_id);
      expect(edited?.edits).toBe(1);
      expect(edited?.text).toMatch(after);
    },
  } satisfies CommandKind;
}

const KINDS: CommandKind[] = [
  typed("/start", ALICE.id, ALICE, "/start", /^Hi, I'm Switchyard/),
  typed("/tools (the list)", ALICE.id, ALICE, "/tools", /2 of 2 tools available/),
  typed(
    "/tools@bot off in a group, by an admin",
    TEAM,
    ADA,
    `/tools@${BOT.username} off lookup channel`,
    /lookup is now off in this channel/,
  ),
  typed(
    "/tools off refused to a non-admin",
    TEAM,
    BOB,
    "/tools off lookup channel",
    /Only workspace admins/,
  ),
  typed("/skills (the list)", ALICE.id, ALICE, "/skills", /2 of 2 skills available/),
  typed("/skills off", ALICE.id, ALICE, "/skills off meeting-notes", /meeting-notes is now off/),
  toModel("/skill <name>", "/skill bot-guide what can you do?", /what can you do\?/),
  toModel("a skill's own command", "/meeting_notes we talked for an hour", /we talked for an hour/),
  toModel("a plain message", "just a question", /just a question/),
  press("a press that switches a tool", "Turn off lookup", /1 of 2 tools available/),
  press("a press that picks the scope", "channel", /tools available/),
];

describe.each(KINDS)("$name", (kind) => {
  it("is answered once under two webhook posts at once and Telegram's retry after", async () => {
    const s = await setups.startWebhook({
      skills: await loadSkills({ global: [], workspaces: {} }),
    });
    const update = await kind.act(s);
    // Telegram's own delivery is on its way; two more posts race it.
    const racing = await Promise.all([
      s.telegram.postToWebhook(update, SECRET),
      s.telegram.postToWebhook(update, SECRET),
    ]);
    expect(racing.every((status) => status === 200 || status === 500)).toBe(true);
    await until(() => (kind.answered(s, update) ? true : undefined));
    expect(await s.telegram.postToWebhook(update, SECRET)).toBe(200);
    await until(() => (s.telegram.pending.length === 0 ? true : undefined));
    await settle();
    kind.once(s, update);
  });

  it("is answered once when a poll sees it again after a crash lost the offset", async () => {
    const skills = await loadSkills({ global: [], workspaces: {} });
    const first = await setups.start({ skills });
    const update = await kind.act(first);
    await until(() => (kind.answered(first, update) ? true : undefined));
    await until(() => (first.telegram.pending.length === 0 ? true : undefined));
    await first.channel.stop();
    await first.pipe.app.redis.del(`${first.pipe.prefix}:telegram:${BOT.id}:offset`);
    first.telegram.redeliver(update);
    const second = await startTelegram({ skills, telegram: first.telegram, pipe: first.pipe });
    setups.add({ ...second, pipe: { ...first.pipe, close: async () => {} } });
    await until(() =>
      first.telegram
        .callsTo("getUpdates")
        .some((c) => Number(c.params.offset) > (update.update_id as number))
        ? true
        : undefined,
    );
    await settle();
    kind.once(first, update);
  });
});
