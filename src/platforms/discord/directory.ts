import { type Client, PermissionFlagsBits, Routes } from "discord.js";
import type {
  ConversationDirectory,
  DirectoryEntry,
  PostPermission,
} from "../../ports/directory.ts";
import { DISCORD_TRAITS } from "./traits.ts";

/** Text (0) and announcement (5) channels take messages; voice, stage and categories are not offered. */
const POSTABLE_TYPES = new Set([0, 5]);
const CHANNEL_MENTION = /^<#(\d{15,21})>$/;
const SNOWFLAKE = /^\d{15,21}$/;
const NEEDED = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;

interface WireChannel {
  id: string;
  name: string;
  type: number;
  permission_overwrites?: WireOverwrite[];
}
interface WireOverwrite {
  id: string;
  type: number;
  allow: string;
  deny: string;
}
interface WireGuild {
  owner_id: string;
  roles: { id: string; permissions: string }[];
}
interface WireMember {
  roles: string[];
}

/**
 * Discord's answers to "which channel is that" and "may this person post
 * there", over REST with the token alone (a worker has no gateway cache):
 * the guild's channels, roles and the member, with permissions computed the
 * way Discord documents it (owner, @everyone and role bits, Administrator,
 * then the channel's @everyone, role and member overwrites). Both the bot and
 * the person need View Channel and Send Messages.
 */
export class DiscordDirectory implements ConversationDirectory {
  #botId: string | undefined;

  constructor(private readonly client: Client) {}

  async find(guildId: string, ref: string): Promise<DirectoryEntry | undefined> {
    if (!SNOWFLAKE.test(guildId)) return undefined; // direct messages have no other channels
    const wanted = ref.trim();
    const id = CHANNEL_MENTION.exec(wanted)?.[1] ?? (SNOWFLAKE.test(wanted) ? wanted : undefined);
    const name = wanted.replace(/^#/, "").toLowerCase();
    const channels = (await this.client.rest.get(Routes.guildChannels(guildId))) as WireChannel[];
    const channel = channels.find(
      (c) => POSTABLE_TYPES.has(c.type) && (id ? c.id === id : c.name.toLowerCase() === name),
    );
    if (!channel) return undefined;
    const guild = (await this.client.rest.get(Routes.guild(guildId))) as WireGuild;
    const bot = await this.#member(guildId, await this.#bot());
    if (!bot || !allows(permissionsIn(guild, guildId, channel, await this.#bot(), bot))) {
      return undefined;
    }
    return { channel: channel.id, name: `#${channel.name}` };
  }

  async mayPost(guildId: string, entry: DirectoryEntry, user: string): Promise<PostPermission> {
    const [guild, channel, member] = await Promise.all([
      this.client.rest.get(Routes.guild(guildId)) as Promise<WireGuild>,
      this.client.rest.get(Routes.channel(entry.channel)) as Promise<WireChannel>,
      this.#member(guildId, user),
    ]);
    if (!member) return { allowed: false, reason: "you are not a member of this server." };
    if (allows(permissionsIn(guild, guildId, channel, user, member))) return { allowed: true };
    return {
      allowed: false,
      reason: `you cannot send messages in ${entry.name}; ask a server admin for access.`,
    };
  }

  mention(user: string): string {
    return DISCORD_TRAITS.mention(user);
  }

  async #member(guildId: string, user: string): Promise<WireMember | undefined> {
    try {
      return (await this.client.rest.get(Routes.guildMember(guildId, user))) as WireMember;
    } catch (error) {
      if ((error as { code?: number }).code === 10007) return undefined; // Unknown Member
      throw error;
    }
  }

  async #bot(): Promise<string> {
    this.#botId ??=
      this.client.user?.id ?? ((await this.client.rest.get(Routes.user())) as { id: string }).id;
    return this.#botId;
  }
}

function allows(permissions: bigint): boolean {
  return (permissions & NEEDED) === NEEDED;
}

/** Discord's permission algorithm for one member in one channel. */
export function permissionsIn(
  guild: WireGuild,
  guildId: string,
  channel: WireChannel,
  userId: string,
  member: WireMember,
): bigint {
  const all = ~0n;
  if (guild.owner_id === userId) return all;
  const roleBits = new Map(guild.roles.map((r) => [r.id, BigInt(r.permissions)]));
  let permissions = roleBits.get(guildId) ?? 0n;
  for (const role of member.roles) permissions |= roleBits.get(role) ?? 0n;
  if (permissions & PermissionFlagsBits.Administrator) return all;
  const overwrites = channel.permission_overwrites ?? [];
  const apply = (allow: bigint, deny: bigint) => {
    permissions = (permissions & ~deny) | allow;
  };
  const everyone = overwrites.find((o) => o.id === guildId);
  if (everyone) apply(BigInt(everyone.allow), BigInt(everyone.deny));
  let roleAllow = 0n;
  let roleDeny = 0n;
  for (const o of overwrites) {
    if (o.type === 0 && o.id !== guildId && member.roles.includes(o.id)) {
      roleAllow |= BigInt(o.allow);
      roleDeny |= BigInt(o.deny);
    }
  }
  apply(roleAllow, roleDeny);
  const own = overwrites.find((o) => o.type === 1 && o.id === userId);
  if (own) apply(BigInt(own.allow), BigInt(own.deny));
  return permissions;
}
