/**
 * The fake Bot API's chats and messages: who is in which chat, forum
 * topics, the messages people and the bot sent (edited in place), and the
 * Bot API methods that read and write them, checked the way Telegram checks
 * them (a chat that does not exist, a thread that is not a topic, HTML it
 * cannot parse, a text over 4,096 characters, an edit that changes nothing).
 */
import type {
  BotCommand,
  Chat,
  InlineKeyboardMarkup,
  Message,
  MessageEntity,
  User,
} from "grammy/types";
import { parseTelegramHtml, TelegramHtmlError } from "./telegram-html.ts";
import { BotApiError } from "./telegram-updates.ts";

export interface FakeChat {
  id: number;
  type: "private" | "group" | "supergroup";
  title?: string;
  is_forum?: boolean;
  /** User ids Telegram reports as administrators (the first is the creator). */
  admins?: number[];
  /** A public chat's @username, without the @. */
  username?: string;
  /**
   * Who else is in the chat. Unset: everyone is a member. Set: only these,
   * the admins and the restricted are; anyone else has left.
   */
  members?: number[];
  /** Members who may not send messages. */
  restricted?: number[];
  /** Bot ids that have left the chat (the bot itself, for a chat it is no longer in). */
  gone?: number[];
  /** The chat's default permissions for members. */
  permissions?: { can_send_messages: boolean };
}

/** A message as stored: the Bot API's Message, with how often the bot edited it. */
export type StoredMessage = Message & { edits?: number; reply_markup?: InlineKeyboardMarkup };

// biome-ignore lint/suspicious/noExplicitAny: Bot API parameters as grammY sends them, read field by field
export type Params = Record<string, any>;

export const TEXT_LIMIT = 4_096;

/** A message a person sends, in a chat (a forum topic of it), maybe replying to one. */
export interface UserMessage {
  readonly chat: number;
  readonly from: User;
  readonly text?: string;
  readonly caption?: string;
  readonly topic?: number;
  readonly replyTo?: number;
  /** Fields set as given, over what the fake fills in. */
  readonly extra?: Partial<Message>;
}

/** A draft the bot streamed (sendMessageDraft): shown to the person, never a message. */
export interface StoredDraft {
  chat: number;
  draft_id: number;
  message_thread_id?: number;
  /** The draft's text as parsed ("" shows Telegram's "Thinking…" placeholder). */
  text: string;
  at: number;
}

export class ChatBook {
  readonly chats = new Map<number, FakeChat>();
  /** Every message, in the order sent. */
  readonly messages: StoredMessage[] = [];
  /** Every draft the bot sent, in order: kept apart, since a draft is not a message. */
  readonly drafts: StoredDraft[] = [];
  /** Commands by scope: "default" or "chat:<id>". */
  readonly commands = new Map<string, BotCommand[]>();
  readonly #topics = new Map<number, Set<number>>();
  readonly #nextMessageId = new Map<number, number>();

  constructor(readonly bot: User & { username: string }) {}

  addChat(chat: FakeChat): void {
    this.chats.set(chat.id, chat);
  }

  chat(id: unknown): FakeChat {
    const chat = this.chats.get(Number(id));
    if (!chat) throw new BotApiError(400, "Bad Request: chat not found");
    return chat;
  }

  /** Opens a forum topic; its id is the id of the service message that opened it. */
  createTopic(chatId: number, name: string, by: User): number {
    const chat = this.chat(chatId);
    if (!chat.is_forum) throw new Error(`chat ${chatId} is not a forum`);
    const opener = this.store({
      message_id: this.#nextId(chatId),
      date: now(),
      chat: chatOf(chat),
      from: by,
      forum_topic_created: { name, icon_color: 7322096 },
      is_topic_message: true,
    } as StoredMessage);
    opener.message_thread_id = opener.message_id;
    const topics = this.#topics.get(chatId) ?? new Set<number>();
    topics.add(opener.message_id);
    this.#topics.set(chatId, topics);
    return opener.message_id;
  }

  /** A person's message, with the entities Telegram detects (mentions, commands). */
  userMessage(input: UserMessage): StoredMessage {
    const chat = this.chat(input.chat);
    const body = input.text ?? input.caption ?? "";
    const entities = detectEntities(body);
    const message = {
      message_id: this.#nextId(chat.id),
      date: now(),
      chat: chatOf(chat),
      from: input.from,
      ...(input.text !== undefined ? { text: input.text } : {}),
      ...(input.caption !== undefined ? { caption: input.caption } : {}),
      ...(entities.length > 0
        ? input.text !== undefined
          ? { entities }
          : { caption_entities: entities }
        : {}),
      ...this.#placement(chat, input.topic, input.replyTo),
      ...input.extra,
    } as StoredMessage;
    return this.store(message);
  }

  store(message: StoredMessage): StoredMessage {
    this.messages.push(message);
    return message;
  }

  find(chatId: unknown, messageId: unknown): StoredMessage | undefined {
    return this.messages.find(
      (m) => m.chat.id === Number(chatId) && m.message_id === Number(messageId),
    );
  }

  sendMessage(p: Params): StoredMessage {
    return this.botSends(p, () => {
      const { text, entities } = formatted(p.text, p.parse_mode);
      checkKeyboard(p.reply_markup);
      return { text, ...(entities.length > 0 ? { entities } : {}) };
    });
  }

  /**
   * A message from the bot with this content (text, a photo, a document),
   * placed as `p` asks: the chat (which must still have the bot), the
   * topic, the message it replies to. The content is read after the chat
   * is checked, so a refused chat answers before a refused content.
   */
  botSends(p: Params, content: () => Partial<Message>): StoredMessage {
    const chat = this.chat(p.chat_id);
    if (chat.gone?.includes(this.bot.id)) {
      throw new BotApiError(403, "Forbidden: bot was kicked from the group chat");
    }
    const body = content();
    const replyTo = p.reply_parameters?.message_id;
    if (replyTo !== undefined && !this.find(chat.id, replyTo)) {
      if (!p.reply_parameters.allow_sending_without_reply) {
        throw new BotApiError(400, "Bad Request: message to be replied not found");
      }
    }
    return this.store({
      message_id: this.#nextId(chat.id),
      date: now(),
      chat: chatOf(chat),
      from: this.bot,
      ...body,
      ...this.#placement(chat, p.message_thread_id, this.find(chat.id, replyTo)?.message_id),
      ...(p.reply_markup ? { reply_markup: p.reply_markup } : {}),
    } as StoredMessage);
  }

  editMessageText(p: Params): StoredMessage {
    const message = this.find(p.chat_id, p.message_id);
    if (!message || message.from?.id !== this.bot.id) {
      throw new BotApiError(400, "Bad Request: message to edit not found");
    }
    const { text, entities } = formatted(p.text, p.parse_mode);
    checkKeyboard(p.reply_markup);
    // As Telegram does: an edit without reply_markup takes the inline keyboard away.
    const markup = p.reply_markup;
    if (
      text === message.text &&
      JSON.stringify(entities) === JSON.stringify(message.entities ?? []) &&
      JSON.stringify(markup) === JSON.stringify(message.reply_markup)
    ) {
      throw new BotApiError(
        400,
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
      );
    }
    Object.assign(message, { text, entities, edit_date: now(), edits: (message.edits ?? 0) + 1 });
    if (markup) message.reply_markup = markup;
    else delete message.reply_markup;
    return message;
  }

  /**
   * Streams a draft into a private chat, checked as the Bot API checks
   * `sendMessageDraft`: a private chat the bot is in, a non-zero integer
   * `draft_id`, text of at most 4,096 characters after entity parsing (empty
   * allowed: "Thinking…"), a topic that exists. The draft is recorded, not stored as a message.
   */
  sendMessageDraft(p: Params): true {
    const chat = this.chat(p.chat_id);
    if (chat.type !== "private") {
      throw new BotApiError(400, "Bad Request: message drafts can be sent to private chats only");
    }
    const draftId = Number(p.draft_id);
    if (p.draft_id === undefined || !Number.isInteger(draftId) || draftId === 0) {
      throw new BotApiError(400, "Bad Request: draft_id must be a non-zero integer");
    }
    if (p.message_thread_id !== undefined) this.checkThread(chat.id, p.message_thread_id);
    const raw = p.text ?? "";
    const text = raw === "" ? "" : formatted(raw, p.parse_mode).text;
    this.drafts.push({
      chat: chat.id,
      draft_id: draftId,
      ...(p.message_thread_id !== undefined
        ? { message_thread_id: Number(p.message_thread_id) }
        : {}),
      text,
      at: Date.now(),
    });
    return true;
  }

  deleteMessage(p: Params): true {
    const message = this.find(p.chat_id, p.message_id);
    if (!message) throw new BotApiError(400, "Bad Request: message to delete not found");
    this.messages.splice(this.messages.indexOf(message), 1);
    return true;
  }

  /** Checks where a chat action or message goes: the chat, and the topic when given. */
  checkThread(chatId: unknown, thread: unknown): void {
    const chat = this.chat(chatId);
    if (thread === undefined) return;
    if (!chat.is_forum || !this.#topics.get(chat.id)?.has(Number(thread))) {
      throw new BotApiError(400, "Bad Request: message thread not found");
    }
  }

  member(p: Params): { status: string; user: User } & Params {
    const chat = this.chat(p.chat_id);
    const id = Number(p.user_id);
    const user: User = { id, is_bot: false, first_name: `user ${p.user_id}` };
    if (chat.gone?.includes(id)) return { status: "left", user };
    if (chat.type === "private") return { status: "member", user };
    const index = chat.admins?.indexOf(id) ?? -1;
    if (index >= 0) return { status: index === 0 ? "creator" : "administrator", user };
    if (chat.restricted?.includes(id)) {
      return {
        status: "restricted",
        user,
        is_member: true,
        can_send_messages: false,
        until_date: 0,
      };
    }
    if (chat.members && !chat.members.includes(id) && !user.is_bot && id !== this.bot.id) {
      return { status: "left", user };
    }
    return { status: "member", user };
  }

  /** getChat: by id or @username, as the Bot API finds a chat. */
  getChat(p: Params): Params {
    const ref = String(p.chat_id ?? "");
    const chat = ref.startsWith("@")
      ? [...this.chats.values()].find((c) => c.username === ref.slice(1))
      : this.chats.get(Number(ref));
    if (!chat) throw new BotApiError(400, "Bad Request: chat not found");
    return {
      id: chat.id,
      type: chat.type,
      ...(chat.title ? { title: chat.title } : {}),
      ...(chat.username ? { username: chat.username } : {}),
      ...(chat.is_forum ? { is_forum: true } : {}),
      ...(chat.permissions ? { permissions: chat.permissions } : {}),
    };
  }

  setCommands(p: Params): true {
    const commands = (p.commands ?? []) as BotCommand[];
    if (commands.length > 100) throw new BotApiError(400, "Bad Request: too many commands");
    for (const c of commands) {
      if (!/^[a-z0-9_]{1,32}$/.test(c.command)) {
        throw new BotApiError(400, "Bad Request: BOT_COMMAND_INVALID");
      }
      if (!c.description || c.description.length > 256) {
        throw new BotApiError(400, "Bad Request: command description is invalid");
      }
    }
    this.commands.set(scopeKey(p.scope), commands);
    return true;
  }

  commandsOf(scope: Params | undefined): BotCommand[] {
    return this.commands.get(scopeKey(scope)) ?? [];
  }

  /** Where a message lands: its topic (a forum's) and what it replies to. */
  #placement(chat: FakeChat, topic: unknown, replyTo: number | undefined): Partial<Message> {
    if (topic !== undefined) this.checkThread(chat.id, topic);
    const thread = topic === undefined ? undefined : Number(topic);
    const replied =
      (replyTo !== undefined ? this.find(chat.id, replyTo) : undefined) ??
      (thread !== undefined ? this.find(chat.id, thread) : undefined);
    return {
      ...(thread !== undefined ? { message_thread_id: thread, is_topic_message: true } : {}),
      ...(replied ? { reply_to_message: strip(replied) } : {}),
    } as Partial<Message>;
  }

  #nextId(chatId: number): number {
    const next = (this.#nextMessageId.get(chatId) ?? 0) + 1;
    this.#nextMessageId.set(chatId, next);
    return next;
  }
}

export function chatOf(chat: FakeChat): Chat {
  return {
    id: chat.id,
    type: chat.type,
    ...(chat.type === "private"
      ? { first_name: chat.title ?? "Someone" }
      : { title: chat.title ?? "A group" }),
    ...(chat.is_forum ? { is_forum: true } : {}),
  } as Chat;
}

/** Telegram's text and entities for a sent text, or the 400 it answers. */
function formatted(raw: unknown, parseMode: unknown): { text: string; entities: MessageEntity[] } {
  if (typeof raw !== "string") throw new BotApiError(400, "Bad Request: message text is empty");
  let text = raw.trim();
  let entities: MessageEntity[] = [];
  if (parseMode === "HTML") {
    try {
      ({ text, entities } = parseTelegramHtml(raw) as { text: string; entities: MessageEntity[] });
    } catch (error) {
      if (error instanceof TelegramHtmlError) throw new BotApiError(400, error.message);
      throw error;
    }
  } else if (parseMode !== undefined) {
    throw new BotApiError(
      400,
      `Bad Request: the fake reads parse_mode HTML only, not ${parseMode}`,
    );
  }
  if (text === "") throw new BotApiError(400, "Bad Request: message text is empty");
  if (text.length > TEXT_LIMIT) throw new BotApiError(400, "Bad Request: message is too long");
  return { text, entities };
}

function checkKeyboard(markup: unknown): void {
  const rows = (markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? [];
  for (const button of rows.flat()) {
    const data = (button as { callback_data?: string }).callback_data;
    if (data !== undefined && (data === "" || Buffer.byteLength(data) > 64)) {
      throw new BotApiError(400, "Bad Request: BUTTON_DATA_INVALID");
    }
  }
}

/** Mentions and commands where Telegram would find them. */
function detectEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(
    /(^|\s)(@[A-Za-z0-9_]{5,32}|\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{5,32})?)/g,
  )) {
    const token = match[2] as string;
    const offset = (match.index ?? 0) + (match[1] as string).length;
    entities.push({
      type: token.startsWith("@") ? "mention" : "bot_command",
      offset,
      length: token.length,
    } as MessageEntity);
  }
  return entities;
}

/** A replied-to message as Telegram nests it: without its own reply. */
function strip(message: StoredMessage): Message {
  const { reply_to_message: _, edits: __, ...rest } = message;
  return rest as Message;
}

function scopeKey(scope: Params | undefined): string {
  if (!scope || scope.type === "default") return "default";
  return scope.chat_id !== undefined ? `${scope.type}:${scope.chat_id}` : scope.type;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
