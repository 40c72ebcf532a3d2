import type { InboundMessage } from "../../core/agent/inbound.ts";
import type { DiscordConversation } from "../../core/config/discord-section.ts";

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
  readonly attachments: ReadonlyMap<
    string,
    { id: string; name: string; contentType: string | null; size: number; url: string }
  >;
  readonly mentions: { readonly users: ReadonlyMap<string, { readonly username: string }> };
}

export interface DiscordNormalizeOptions {
  readonly botUserId: string;
  /** A thread is its own conversation (thread) or part of its channel's (channel). */
  readonly conversation: DiscordConversation;
}

/**
 * A Discord message as a channel-neutral one. workspace = guild ("dm" for
 * direct messages); a thread is its own conversation; the message id is the
 * event id, so a gateway replay after RESUME makes no second turn.
 */
export function normalizeDiscordMessage(
  message: DiscordMessageLike,
  options: DiscordNormalizeOptions,
): InboundMessage | undefined {
  const text = plainText(message, options.botUserId);
  if (text === "" && message.attachments.size === 0) return undefined;
  const inThread = message.channel.isThread();
  const parent = inThread ? (message.channel.parentId ?? message.channelId) : message.channelId;
  return {
    platform: "discord",
    workspace: message.guildId ?? "dm",
    channel: parent,
    conversation: options.conversation === "channel" ? parent : message.channelId,
    ...(inThread ? { thread: message.channelId } : {}),
    user: message.author.id,
    userName: message.member?.displayName ?? message.author.username,
    text,
    attachments: [...message.attachments.values()].map((a) => ({
      name: a.name,
      ...(a.contentType ? { mimeType: a.contentType } : {}),
      size: a.size,
      ref: a.url,
    })),
    eventId: message.id,
    messageRef: message.id,
    time: message.createdTimestamp,
  };
}

/** The bot's own mention dropped, other mentions as @names. */
function plainText(message: DiscordMessageLike, botUserId: string): string {
  return message.content
    .replace(new RegExp(`<@!?${botUserId}>\\s*`, "g"), "")
    .replace(/<@!?(\d+)>/g, (_, id: string) => `@${message.mentions.users.get(id)?.username ?? id}`)
    .trim();
}
