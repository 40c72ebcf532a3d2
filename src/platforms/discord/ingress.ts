import { type Message, PermissionFlagsBits } from "discord.js";
import type { Actor } from "../../core/commands/index.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import type { ChannelState } from "../../ingress/channel-state.ts";
import { takeMessage } from "../../ingress/take-message.ts";
import type { DiscordConfig, DiscordConversation } from "./config-section.ts";
import { type DiscordMessageLike, normalizeDiscordMessage } from "./normalize.ts";

/** What taking Discord messages needs from the channel. */
export interface DiscordIngressDeps {
  readonly runtime: ChannelRuntime;
  /** The bot's own user id, once logged in. */
  readonly botId: () => string;
  /** The events taken (by the bot's user id) and the threads the bot is in. */
  readonly state: () => ChannelState;
  /** The bot account of `discord.accounts` this is; unset for the only or default bot. */
  readonly account?: string;
  /** The config's `discord:` section, read on every message. */
  readonly settings: () => DiscordConfig;
}

/**
 * A message meant for the bot, once: the first delivery wins the ledger's
 * claim on `message:<id>`; a replay (RESUME, a second ingress process)
 * finds it taken. The queue dedupes turns on the id too, but a command
 * answered on the spot, or a message answered as too long, never reaches it.
 */
export async function takeDiscordMessage(
  message: Message,
  deps: DiscordIngressDeps,
): Promise<void> {
  const { runtime } = deps;
  const botId = deps.botId();
  if (message.author.id === botId) return;
  // Joins, pins, boosts, "started a thread": Discord's notices, not anyone talking.
  if (message.system) return;
  if (message.author.bot && !deps.settings().answerBots) return;
  if (!(await isForMe(message, botId, deps))) return;
  const inbound = normalizeDiscordMessage(message as unknown as DiscordMessageLike, {
    botUserId: botId,
    conversation: conversationOf(message, deps.settings()),
    ...(deps.account ? { account: deps.account } : {}),
  });
  if (!inbound) return;
  const state = deps.state();
  await state.events.take(`message:${message.id}`, async () => {
    if (message.channel.isThread()) await state.rememberThread(threadKey(deps, message.channelId));
    await takeMessage(runtime, inbound, {
      actor: actorOf(message),
      reply: (text) => reply(message, text),
      claimed: true,
    });
  });
}

async function reply(message: Message, text: string): Promise<void> {
  await message.reply({ content: text.slice(0, 2_000), allowedMentions: { parse: [] } });
}

/** DMs, mentions, replies to the bot, and threads it is part of. */
async function isForMe(
  message: Message,
  botId: string,
  deps: DiscordIngressDeps,
): Promise<boolean> {
  if (!message.guildId) return true;
  if (message.mentions.users.has(botId)) return true;
  if (message.mentions.repliedUser?.id === botId) return true;
  if (message.channel.isThread()) {
    if (message.channel.ownerId === botId) return true;
    return deps.state().inThread(threadKey(deps, message.channelId));
  }
  return false;
}

/** Thread or channel: the setting of the channel (a thread's parent), else the default. */
function conversationOf(message: Message, settings: DiscordConfig): DiscordConversation {
  const channel = message.channel.isThread()
    ? (message.channel.parentId ?? message.channelId)
    : message.channelId;
  return settings.channels[channel]?.conversation ?? settings.conversation;
}

function threadKey(deps: DiscordIngressDeps, threadId: string): string {
  // Each bot is in the threads it was in: another bot of the deployment is not.
  const platform = deps.account ? `discord@${deps.account}` : "discord";
  return deps.runtime.sources.store.keys.platformThread(platform, threadId);
}

/** Manage Server makes a platform admin. */
function actorOf(message: Message): Actor {
  return {
    id: `discord:${message.author.id}`,
    isPlatformAdmin: Boolean(message.member?.permissions.has(PermissionFlagsBits.ManageGuild)),
  };
}
