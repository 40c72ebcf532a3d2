import type { Message, MessageEntity } from "grammy/types";
import { declaredAttachment } from "../../core/attachments/attachment.ts";
import type { Attachment, ConversationAddress, InboundMessage } from "../../core/conversation.ts";

/** Who the bot is, from `getMe`: what mentions and commands are matched against. */
export interface TelegramBotIdentity {
  readonly id: number;
  readonly username: string;
}

export interface TelegramNormalizeOptions {
  readonly bot: TelegramBotIdentity;
  /** `topic`: each forum topic is its own conversation; `chat`: the whole chat is one. */
  readonly conversation: "topic" | "chat";
  /** The bot account that took it (`telegram.accounts`); unset for the only or default bot. */
  readonly account?: string;
  /** The time for a message without a date (Telegram always sends one; a replayed payload may not). */
  readonly now?: () => number;
}

/** The longest name the queue carries: Telegram's are at most 64 (a person) or 128 (a chat) characters. */
const NAME_LIMIT = 256;

/**
 * Whether a message is the bot's to answer. Private chats always are; in
 * groups, a message that mentions the bot (`@bot_username`, or a mention of
 * a user without a username that names the bot), replies to one of the
 * bot's messages, or starts with a command addressed to it: `/tools@bot`, or
 * a bare `/tools` when `isOwnCommand("tools")`. With privacy mode on,
 * Telegram sends only those (and service messages) anyway; with it off, or
 * with the bot an admin, it sends everything and this picks.
 *
 * In a forum topic every message replies to the topic's first (service)
 * message, so a reply counts only when it answers a real message of the bot.
 */
export function isForBot(
  message: Message,
  bot: TelegramBotIdentity,
  isOwnCommand: (name: string) => boolean,
): boolean {
  if (message.chat.type === "private") return true;
  const { text, entities } = textOf(message);
  if (entities.some((e) => mentionsBot(e, text, bot))) return true;
  const replied = message.reply_to_message;
  if (replied?.from?.id === bot.id && replied.forum_topic_created === undefined) return true;
  const command = leadingCommand(text, entities);
  if (command === undefined) return false;
  if (command.target !== undefined)
    return command.target.toLowerCase() === bot.username.toLowerCase();
  return isOwnCommand(command.name);
}

/**
 * A Telegram message as a channel-neutral one, or undefined when there is
 * nothing to answer (a service message, an automatic forward from a linked
 * channel, a bare mention, no message id to reply to). workspace and channel are the chat; the
 * conversation is the chat, or `<chat>:<topic>` for a forum topic when
 * topics are conversations. The event id is the chat and the message id, so
 * a redelivered update (the same message) makes no second turn.
 */
export function normalizeTelegramMessage(
  message: Message,
  options: TelegramNormalizeOptions,
): InboundMessage | undefined {
  if (message.is_automatic_forward || (message.from?.is_bot && !message.sender_chat))
    return undefined;
  if (typeof message.message_id !== "number") return undefined;
  const { text, entities } = textOf(message);
  const plain = withoutBotMentions(text, entities, options.bot);
  const attachments = attachmentsOf(message);
  if (plain === "" && attachments.length === 0) return undefined;
  const topic = message.is_topic_message ? message.message_thread_id : undefined;
  const user = message.sender_chat ?? message.from;
  if (user === undefined) return undefined;
  const userName =
    "title" in user && user.title
      ? user.title
      : "first_name" in user
        ? [user.first_name, user.last_name].filter(Boolean).join(" ") || user.username
        : undefined;
  const chat = String(message.chat.id);
  return {
    ...telegramAddress(message.chat.id, topic, options.conversation, options.account),
    ...(topic !== undefined ? { thread: String(topic) } : {}),
    user: String(user.id),
    kind: message.chat.type === "private" ? "dm" : "group",
    ...(userName ? { userName: userName.slice(0, NAME_LIMIT) } : {}),
    text: plain,
    attachments,
    eventId: `${chat}:${message.message_id}`,
    messageRef: String(message.message_id),
    time: Number.isFinite(message.date) ? message.date * 1000 : (options.now ?? Date.now)(),
  };
}

/**
 * Where a chat's message belongs: workspace and channel are the chat; the
 * conversation is the chat, or `<chat>:<topic>` for a forum topic when
 * topics are conversations. A bot of `telegram.accounts` puts its id on
 * the address, so its chats are conversations of its own.
 */
export function telegramAddress(
  chatId: number,
  topic: number | undefined,
  conversation: "topic" | "chat",
  account?: string,
): ConversationAddress {
  const chat = String(chatId);
  return {
    platform: "telegram",
    ...(account ? { account } : {}),
    workspace: chat,
    channel: chat,
    conversation: topic !== undefined && conversation === "topic" ? `${chat}:${topic}` : chat,
  };
}

/** The text a person typed or captioned, with its entities (offsets in UTF-16 code units). */
export function textOf(message: Message): { text: string; entities: readonly MessageEntity[] } {
  if (message.text !== undefined) return { text: message.text, entities: message.entities ?? [] };
  return { text: message.caption ?? "", entities: message.caption_entities ?? [] };
}

/** A command at the start of the text: `/tools@bot off x` -> { name: "tools", target: "bot" }. */
export function leadingCommand(
  text: string,
  entities: readonly MessageEntity[],
): { name: string; target?: string; rest: string } | undefined {
  const entity = entities.find((e) => e.type === "bot_command" && e.offset === 0);
  const raw = entity
    ? text.slice(0, entity.length)
    : /^\/[A-Za-z0-9_]{1,32}(@\w+)?/.exec(text)?.[0];
  if (raw === undefined) return undefined;
  const [name = "", target] = raw.slice(1).split("@");
  return {
    name: name.toLowerCase(),
    ...(target !== undefined ? { target } : {}),
    rest: text.slice(raw.length).trim(),
  };
}

function mentionsBot(entity: MessageEntity, text: string, bot: TelegramBotIdentity): boolean {
  if (entity.type === "text_mention") return entity.user.id === bot.id;
  if (entity.type !== "mention") return false;
  return (
    text.slice(entity.offset, entity.offset + entity.length).toLowerCase() ===
    `@${bot.username.toLowerCase()}`
  );
}

/** The text with the bot's own mentions cut out, as if the person had only addressed it. */
function withoutBotMentions(
  text: string,
  entities: readonly MessageEntity[],
  bot: TelegramBotIdentity,
): string {
  const cuts = entities
    .filter((e) => mentionsBot(e, text, bot))
    .sort((a, b) => b.offset - a.offset);
  let out = text;
  for (const cut of cuts) {
    const before = out.slice(0, cut.offset).replace(/[ \t]+$/, "");
    // "@bot, do this" and "@bot: do this" address the bot; the comma goes with the mention.
    const after = out.slice(cut.offset + cut.length).replace(/^[,:]?[ \t]*/, "");
    out =
      before === "" || after === "" || /\s$/.test(before) ? before + after : `${before} ${after}`;
  }
  return out.trim();
}

/**
 * Voice notes, audio, photos (the largest size), documents and videos, by
 * file id: the worker asks `getFile` for the path when it fetches one.
 */
export function attachmentsOf(message: Message): Attachment[] {
  const found: Attachment[] = [];
  const add = (
    file: unknown,
    name: unknown,
    fallback: string,
    mimeType?: string,
    voice = false,
  ) => {
    if (typeof file !== "object" || file === null) return;
    const f = file as { file_id?: unknown; file_size?: unknown; mime_type?: unknown };
    const attachment = declaredAttachment(
      { ref: f.file_id, name, mimeType: f.mime_type ?? mimeType, size: f.file_size, voice },
      fallback,
    );
    if (attachment) found.push(attachment);
  };
  add(message.voice, undefined, "voice-note.ogg", "audio/ogg", true);
  add(message.audio, message.audio?.file_name, "audio");
  const photos = Array.isArray(message.photo) ? message.photo : [];
  const photo = photos.at(-1);
  if (photo) add(photo, undefined, `photo-${photo.file_unique_id}.jpg`, "image/jpeg");
  add(message.document, message.document?.file_name, "document");
  add(message.video, message.video?.file_name, "video.mp4", "video/mp4");
  add(message.video_note, undefined, "video-note.mp4", "video/mp4");
  return found;
}
