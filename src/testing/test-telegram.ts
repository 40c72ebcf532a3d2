/**
 * Telegram for a test: the fake Bot API and a TelegramChannel long-polling
 * it through grammY, with a person's messages, files and button presses
 * delivered as updates, as Telegram delivers them.
 *
 * @example
 * const telegram = await startTestTelegram();
 * const bot = createBot({ channels: [telegram.channel()], ... });
 * await bot.start();
 * await telegram.say("hello"); // Alice, in her private chat with the bot
 * telegram.sent(); // what the bot sent
 */
import type { Message, User } from "grammy/types";
import type { TelegramChannel } from "../platforms/telegram/channel.ts";
import { FAKE_TELEGRAM, type FakeTelegram, startFakeTelegram } from "./fakes/telegram-api.ts";
import type { StoredMessage } from "./fakes/telegram-chats.ts";
import { findControl } from "./find-control.ts";
import type { BotPost, Control, PostWith, Said, TestPlatform, Where } from "./test-platform.ts";

/** The people of the fake Telegram, by id: 5001 (Alice) writes by default. */
export const TEST_TELEGRAM_USERS: Readonly<Record<string, User>> = {
  "5001": { id: 5001, is_bot: false, first_name: "Alice", username: "alice_a" },
  "5002": { id: 5002, is_bot: false, first_name: "Ada", username: "ada_admin" },
};

interface TelegramControl extends Control {
  readonly data: string;
}

export interface TestTelegram extends TestPlatform {
  /** The fake Bot API itself: every call, every message, drafts, webhooks, failures to script. */
  readonly api: FakeTelegram;
  /** What the bot sent, oldest first: the same as `posts()`. */
  sent(): BotPost[];
}

export async function startTestTelegram(): Promise<TestTelegram> {
  const api = await startFakeTelegram();
  const { TelegramChannel } = await import("../platforms/telegram/channel.ts");
  const channel: TelegramChannel = new TelegramChannel({
    token: api.token,
    apiRoot: api.apiRoot,
    pollTimeoutSeconds: 5,
  });
  const chats = new Set<number>();
  const person = (where: Where): User => {
    const id = where.user ?? "5001";
    const known = TEST_TELEGRAM_USERS[id];
    if (known) return known;
    return { id: Number(id), is_bot: false, first_name: `User ${id}` };
  };
  /** The chat a person writes in, made on first use: their private chat, or a group (a forum when a topic is given). */
  const chatOf = (where: Where, from: User): number => {
    const id = where.channel === undefined ? from.id : Number(where.channel);
    if (!Number.isSafeInteger(id)) {
      throw new Error(`A Telegram chat is a number (e.g. -1001234567890), not "${where.channel}".`);
    }
    if (!chats.has(id)) {
      chats.add(id);
      api.addChat(
        where.channel === undefined
          ? { id, type: "private", title: from.first_name }
          : { id, type: "supergroup", title: `Group ${id}`, is_forum: where.thread !== undefined },
      );
    }
    return id;
  };
  const send = (
    text: string,
    where: Where,
    extra: Partial<Message> = {},
    caption = false,
  ): Said => {
    const from = person(where);
    const chat = chatOf(where, from);
    // In a group the bot hears what mentions it.
    const mentions = where.channel !== undefined && where.mention !== false;
    const said = mentions ? `@${FAKE_TELEGRAM.bot.username} ${text}` : text;
    const topic = where.thread === undefined ? undefined : Number(where.thread);
    const update = api.userSends({
      chat,
      from,
      ...(caption ? { caption: said } : { text: said }),
      ...(topic !== undefined ? { topic } : {}),
      extra,
    });
    return {
      platform: "telegram",
      channel: String(chat),
      thread: where.thread,
      id: String(update.message?.message_id ?? ""),
    };
  };
  const telegramPosts = () =>
    api.messages.filter((m) => m.from?.id === FAKE_TELEGRAM.bot.id).map(postOf);
  const posts = (): BotPost[] => telegramPosts();

  return {
    platform: "telegram",
    api,
    channel: () => channel,
    say: async (text, where = {}) => send(text, where),
    async file(file, text = "", where = {}) {
      const stored = api.addFile(file.bytes, file.name);
      const document = {
        ...stored,
        file_name: file.name,
        mime_type: file.type ?? "application/octet-stream",
      };
      return send(text, where, { document }, true);
    },
    async click(target) {
      const { post, control } = findControl(telegramPosts(), target);
      const message = api.messages.find(
        (m) => String(m.chat.id) === post.channel && String(m.message_id) === post.id,
      ) as Message;
      api.pressButton({ from: person(target), message, data: control.data });
    },
    posts,
    sent: posts,
    // The bot stops its channel; this closes the fake.
    close: () => api.close(),
  };
}

function postOf(message: StoredMessage): PostWith<TelegramControl> {
  const buttons = message.reply_markup?.inline_keyboard.flat() ?? [];
  return {
    platform: "telegram",
    channel: String(message.chat.id),
    thread: message.message_thread_id === undefined ? undefined : String(message.message_thread_id),
    id: String(message.message_id),
    text: message.text ?? message.caption ?? "",
    controls: buttons.flatMap((b) =>
      "callback_data" in b && typeof b.callback_data === "string"
        ? [{ label: b.text, data: b.callback_data }]
        : [],
    ),
  };
}
