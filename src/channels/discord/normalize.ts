import type { InboundMessage } from "../../core/agent/inbound.ts";
import type { DiscordConversation } from "../../core/config/discord-section.ts";

type AttachmentLike = {
  id: string;
  name: string;
  contentType: string | null;
  size: number;
  url: string;
};

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
  /** The messages a forward carries (`message_snapshots`); a forward's own content is empty. */
  readonly messageSnapshots?: ReadonlyMap<string, DiscordSnapshotLike>;
}

export interface DiscordNormalizeOptions {
  readonly botUserId: string;
  /** A thread is its own conversation (thread) or part of its channel's (channel). */
  readonly conversation: DiscordConversation;
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
  const inThread = message.channel.isThread();
  const parent = inThread ? (message.channel.parentId ?? message.channelId) : message.channelId;
  return {
    platform: "discord",
    workspace: message.guildId ?? "dm",
    channel: parent,
    conversation: options.conversation === "channel" ? parent : message.channelId,
    ...(inThread ? { thread: message.channelId } : {}),
    user: message.author.id,
    kind: message.guildId ? "group" : "dm",
    userName: message.member?.displayName ?? message.author.username,
    text,
    attachments: files.map((a) => ({
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
