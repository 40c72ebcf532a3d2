import { declaredAttachment } from "../../core/attachments/attachment.ts";
import type { InboundMessage } from "../../core/conversation.ts";
import type { DiscordConversation } from "./config-section.ts";

type AttachmentLike = {
  id: string;
  name: string;
  contentType: string | null;
  size: number;
  url: string;
  /** Set on a voice message's audio (discord.js `Attachment.waveform`). */
  waveform?: string | null;
};

/** `IS_VOICE_MESSAGE` in a message's flags (https://discord.com/developers/docs/resources/message#message-object-message-flags). */
const IS_VOICE_MESSAGE = 1 << 13;

/** A forwarded message as the forward carries it: a snapshot of its text and files. */
export interface DiscordSnapshotLike {
  readonly content: string;
  readonly attachments: ReadonlyMap<string, AttachmentLike>;
}

/** The parts of a discord.js Message that Switchyard reads. */
export interface DiscordMessageLike {
  readonly id: string;
  readonly content: string;
  readonly createdTimestamp: number;
  readonly guildId: string | null;
  readonly channelId: string;
  readonly author: { readonly id: string; readonly username: string; readonly bot: boolean };
  readonly member?: { readonly displayName?: string } | null;
  readonly channel: { isThread(): boolean; readonly parentId?: string | null };
  readonly attachments: ReadonlyMap<string, AttachmentLike>;
  readonly mentions: { readonly users: ReadonlyMap<string, { readonly username: string }> };
  /** The message's flags (discord.js `MessageFlagsBitField`); a voice message has `IS_VOICE_MESSAGE`. */
  readonly flags?: { readonly bitfield: number } | null;
  /** The messages a forward carries (`message_snapshots`); a forward's own content is empty. */
  readonly messageSnapshots?: ReadonlyMap<string, DiscordSnapshotLike>;
}

export interface DiscordNormalizeOptions {
  readonly botUserId: string;
  /** A thread is its own conversation (thread) or part of its channel's (channel). */
  readonly conversation: DiscordConversation;
  /** The bot account that took it (`discord.accounts`); unset for the only or default bot. */
  readonly account?: string;
}

/**
 * A Discord message as a channel-neutral one. workspace = guild ("dm" for
 * direct messages); a thread is its own conversation; the message id is the
 * event id, so a gateway replay after RESUME makes no second turn. A
 * forwarded message reads as what it forwards, under "Forwarded message:".
 */
export function normalizeDiscordMessage(
  message: DiscordMessageLike,
  options: DiscordNormalizeOptions,
): InboundMessage | undefined {
  const snapshots = [...(message.messageSnapshots?.values() ?? [])];
  const text = [
    plainText(message, options.botUserId),
    ...snapshots
      .map((s) => s.content.trim())
      .filter(Boolean)
      .map((t) => `Forwarded message:\n${t}`),
  ]
    .filter(Boolean)
    .join("\n\n");
  const files = [message, ...snapshots].flatMap((m) => [...m.attachments.values()]);
  if (text === "" && files.length === 0) return undefined;
  const voice = ((message.flags?.bitfield ?? 0) & IS_VOICE_MESSAGE) !== 0;
  const inThread = message.channel.isThread();
  const parent = inThread ? (message.channel.parentId ?? message.channelId) : message.channelId;
  return {
    platform: "discord",
    ...(options.account ? { account: options.account } : {}),
    workspace: message.guildId ?? "dm",
    channel: parent,
    conversation: options.conversation === "channel" ? parent : message.channelId,
    ...(inThread ? { thread: message.channelId } : {}),
    user: message.author.id,
    kind: message.guildId ? "group" : "dm",
    userName: message.member?.displayName ?? message.author.username,
    text,
    attachments: files.flatMap((a) => discordAttachment(a, voice) ?? []),
    eventId: message.id,
    messageRef: message.id,
    time: message.createdTimestamp,
  };
}

/** A Discord attachment, fetched from its CDN URL; audio in a voice message is a voice note. */
function discordAttachment(a: AttachmentLike, voiceMessage: boolean) {
  const voice = Boolean(a.waveform) || (voiceMessage && String(a.contentType).startsWith("audio/"));
  return declaredAttachment(
    { ref: a.id, name: a.name, mimeType: a.contentType, size: a.size, url: a.url, voice },
    "attachment",
  );
}

/** The bot's own mention dropped, other mentions as @names. */
function plainText(message: DiscordMessageLike, botUserId: string): string {
  return message.content
    .replace(new RegExp(`<@!?${botUserId}>\\s*`, "g"), "")
    .replace(/<@!?(\d+)>/g, (_, id: string) => `@${message.mentions.users.get(id)?.username ?? id}`)
    .trim();
}
