/**
 * The guilds, users and messages behind the fake Discord (discord-api.ts), and
 * the JSON shapes Discord sends for them. discord.js builds its caches from
 * these payloads, so the fields it reads must be there: a GUILD_CREATE without
 * `channels` leaves messages in those channels dropped, a message without
 * `author` or `mentions` throws inside the client.
 */

/** Discord's epoch (2015-01-01) in ms: snowflakes count from it. */
const DISCORD_EPOCH = 1_420_070_400_000n;

export const FAKE_DISCORD = {
  token: "fake-discord-token",
  applicationId: "1100000000000000001",
  botUserId: "1100000000000000001",
  botUsername: "switchyard",
  guildId: "1200000000000000001",
  channelId: "1300000000000000001",
} as const;

export interface FakeDiscordChannel {
  id: string;
  name: string;
  /** 0 text (default), 2 voice, 4 category, 5 announcement, 11 public thread. */
  type?: number;
  /** For a thread, the channel it belongs to. */
  parentId?: string;
  /** Deleted: Discord answers Unknown Channel (10003) to a message posted there. */
  gone?: boolean;
  /** Permission overwrites: `type` 0 for a role (the guild id is @everyone), 1 for a member. */
  overwrites?: FakeDiscordOverwrite[];
}

export interface FakeDiscordOverwrite {
  id: string;
  type: 0 | 1;
  /** Permission bits as decimal strings, as Discord sends them. */
  allow: string;
  deny: string;
}

export interface FakeDiscordRole {
  id: string;
  name: string;
  permissions: string;
}

/** @everyone's permissions unless a test says otherwise: view channels, send messages, read history. */
export const EVERYONE_PERMISSIONS = "68608";

export interface FakeDiscordGuild {
  id: string;
  name: string;
  ownerId?: string;
  channels: FakeDiscordChannel[];
  /** Roles besides @everyone (whose id is the guild's). */
  roles?: FakeDiscordRole[];
  everyonePermissions?: string;
  /**
   * Who is in the guild, with their role ids. Unset: everyone the fake knows
   * is a member with no roles. The bot is always a member.
   */
  members?: Record<string, { roles: string[] }>;
}

export interface FakeDiscordUser {
  username: string;
  globalName?: string;
  bot?: boolean;
}

/** A message as Discord serializes it (only what discord.js and tests read). */
export interface DiscordMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: ReturnType<typeof userPayload>;
  member?: Record<string, unknown>;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  tts: boolean;
  mention_everyone: boolean;
  mentions: ReturnType<typeof userPayload>[];
  mention_roles: string[];
  attachments: unknown[];
  embeds: unknown[];
  components: unknown[];
  pinned: boolean;
  /** 0 default, 19 reply. */
  type: number;
  flags: number;
  message_reference?: {
    type?: number;
    message_id?: string;
    channel_id?: string;
    guild_id?: string;
    fail_if_not_exists?: boolean;
  };
  nonce?: string | number;
  [field: string]: unknown;
}

/** Snowflakes that sort by creation, as Discord's do: time, then a counter. */
export function snowflakes(now: () => number = Date.now): () => string {
  let increment = 0n;
  return () => {
    increment = (increment + 1n) & 0xfffn;
    return String(((BigInt(now()) - DISCORD_EPOCH) << 22n) | increment);
  };
}

export function userPayload(id: string, user: FakeDiscordUser) {
  return {
    id,
    username: user.username,
    global_name: user.globalName ?? null,
    discriminator: "0",
    avatar: null,
    bot: user.bot ?? false,
    system: false,
    flags: 0,
    public_flags: 0,
  };
}

export function memberPayload(joinedAt: string) {
  return {
    roles: [],
    nick: null,
    avatar: null,
    joined_at: joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    pending: false,
    flags: 0,
  };
}

export function channelPayload(guildId: string, channel: FakeDiscordChannel, position: number) {
  const type = channel.type ?? 0;
  const base = {
    id: channel.id,
    guild_id: guildId,
    name: channel.name,
    type,
    position,
    permission_overwrites: channel.overwrites ?? [],
    parent_id: channel.parentId ?? null,
    nsfw: false,
  };
  if (type === 11 || type === 12) {
    return {
      ...base,
      owner_id: FAKE_DISCORD.botUserId,
      message_count: 0,
      member_count: 1,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
        locked: false,
      },
    };
  }
  return { ...base, topic: null, last_message_id: null, rate_limit_per_user: 0 };
}

/**
 * The GUILD_CREATE Discord sends after READY for each guild READY listed as
 * unavailable. discord.js waits for all of them (up to 15 s) before `ready`.
 */
export function guildCreatePayload(guild: FakeDiscordGuild, bot: ReturnType<typeof userPayload>) {
  const joinedAt = new Date().toISOString();
  const isThread = (c: FakeDiscordChannel) => c.type === 11 || c.type === 12;
  const payloads = guild.channels.map((c, i) => channelPayload(guild.id, c, i));
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId ?? "1000000000000000001",
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    // The @everyone role has the guild's id; its permissions let everyone
    // view channels, send messages and read history.
    roles: rolesPayload(guild),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    max_members: 500000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: "en-US",
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    joined_at: joinedAt,
    large: false,
    unavailable: false,
    member_count: 2,
    members: [{ ...memberPayload(joinedAt), user: bot }],
    channels: payloads.filter((_, i) => !isThread(guild.channels[i] as FakeDiscordChannel)),
    threads: payloads.filter((_, i) => isThread(guild.channels[i] as FakeDiscordChannel)),
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** User ids mentioned as `<@id>` or `<@!id>` in `content`, in order, without repeats. */
export function mentionedIds(content: string): string[] {
  return [...new Set([...content.matchAll(/<@!?(\d{15,21})>/g)].map((m) => m[1] as string))];
}

/** The guild's roles on the wire: @everyone (the guild's id) first. */
export function rolesPayload(guild: FakeDiscordGuild) {
  const role = (id: string, name: string, permissions: string, position: number) => ({
    id,
    name,
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions,
    managed: false,
    mentionable: false,
    flags: 0,
  });
  return [
    role(guild.id, "@everyone", guild.everyonePermissions ?? EVERYONE_PERMISSIONS, 0),
    ...(guild.roles ?? []).map((r, i) => role(r.id, r.name, r.permissions, i + 1)),
  ];
}
