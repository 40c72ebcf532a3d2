/**
 * A local Discord, REST and gateway on one port, so tests drive a real
 * discord.js Client. The REST routes are in discord-rest.ts, the gateway in
 * discord-gateway.ts, the payload shapes in discord-model.ts.
 *
 * @example
 * const fake = await startFakeDiscord();
 * const client = new Client({
 *   intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages,
 *     GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
 *   partials: [Partials.Channel],
 *   rest: { api: fake.apiUrl },
 * });
 * await client.login(fake.token);
 * fake.messageCreate({ channelId: FAKE_DISCORD.channelId, authorId: "1000000000000000002",
 *   content: `<@${FAKE_DISCORD.botUserId}> hello` });
 * const post = await fake.waitForCall("POST", /\/channels\/\d+\/messages$/);
 * // post.body.message_reference.message_id is the id of the message above
 * await client.destroy();
 * await fake.close();
 */
import { EventEmitter } from "node:events";
import { attachFakeGateway, type GatewayFrame } from "./discord-gateway.ts";
import { DiscordRouteLimiter, type DiscordRouteLimits } from "./discord-limits.ts";
import {
  type DiscordMessage,
  FAKE_DISCORD,
  type FakeDiscordGuild,
  type FakeDiscordUser,
  guildCreatePayload,
  memberPayload,
  snowflakes,
  userPayload,
} from "./discord-model.ts";
import {
  createDiscordRest,
  type FakeRateLimit,
  mentions,
  type RecordedDiscordCall,
} from "./discord-rest.ts";
import { listenLocal } from "./local-server.ts";

export {
  type DiscordMessage,
  FAKE_DISCORD,
  type FakeDiscordGuild,
  type FakeDiscordUser,
  type RecordedDiscordCall,
};

export interface FakeDiscordOptions {
  /** The bot token the client must log in with. Defaults to `FAKE_DISCORD.token`. */
  token?: string;
  applicationId?: string;
  botUserId?: string;
  botUsername?: string;
  /**
   * The application's flags in `GET /applications/@me`. Defaults to
   * `GATEWAY_MESSAGE_CONTENT_LIMITED` (1 << 19): the Message Content intent
   * switched on in the Developer Portal, as the bot needs it.
   */
  applicationFlags?: number;
  /** Defaults to one guild with one text channel (`FAKE_DISCORD.guildId`, `.channelId`). */
  guilds?: FakeDiscordGuild[];
  /** Names for user ids that appear as authors and mentions. */
  users?: Record<string, FakeDiscordUser>;
  heartbeatIntervalMs?: number;
  /**
   * Discord's per-route buckets (discord-limits.ts; `DISCORD_ROUTE_LIMITS`
   * for sending and editing messages): calls past them answer 429 with
   * `retry_after`. Off by default.
   */
  routeLimits?: DiscordRouteLimits;
}

export interface MessageCreateInput {
  channelId: string;
  /** Defaults to the guild the channel is in; a channel in no guild is a DM. */
  guildId?: string;
  authorId: string;
  content: string;
  /** Defaults to a fresh snowflake; pass an old one to replay a message. */
  id?: string;
  /** The message this one replies to (type 19, with message_reference). */
  replyTo?: string;
  /** Extra fields merged over the payload, e.g. `attachments`. */
  extra?: Record<string, unknown>;
}

export interface FakeDiscord {
  /** For `new Client({ rest: { api } })`, e.g. `http://127.0.0.1:54321/api`. */
  apiUrl: string;
  gatewayUrl: string;
  token: string;
  applicationId: string;
  botUserId: string;
  guilds: FakeDiscordGuild[];
  users: Map<string, FakeDiscordUser>;
  /** Every REST request in arrival order, including refused ones. */
  calls: RecordedDiscordCall[];
  /** Messages the bot posted, updated in place by its edits. */
  messages: DiscordMessage[];
  /** Frames the clients sent over the gateway. */
  gatewayFrames: GatewayFrame[];
  readonly identifies: number;
  readonly resumes: number;
  /** Sends a gateway DISPATCH to every connected client; throws if none is connected. */
  dispatch(eventName: string, data: unknown): void;
  /** Dispatches a MESSAGE_CREATE shaped like Discord's and returns its payload. */
  messageCreate(input: MessageCreateInput): DiscordMessage;
  /** The next `times` matching requests answer 429 with `retry_after` (seconds). */
  rateLimit(method: string, path: RegExp, retryAfterSec: number, times?: number): void;
  /** The route buckets' refusals and the calls made during a wait; set with `routeLimits`. */
  readonly routeLimiter: DiscordRouteLimiter | undefined;
  /**
   * Stores a file as Discord's CDN holds an attachment: the returned
   * attachment object (id, filename, size, url, content_type) goes in a
   * MESSAGE_CREATE's `attachments`, and its bytes are served at its url.
   */
  addFile(bytes: Uint8Array, filename: string, contentType?: string): Record<string, unknown>;
  /** Every download of a stored file, by attachment id, in order. */
  readonly fileDownloads: readonly string[];
  /** Sends op 7 Reconnect: discord.js reconnects and RESUMEs. */
  reconnect(): void;
  /** Resolves with the first answered call matching method and path (after `after` calls). */
  waitForCall(
    method: string,
    path: RegExp,
    options?: { timeoutMs?: number; after?: number },
  ): Promise<RecordedDiscordCall>;
  close(): Promise<void>;
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = options.token ?? FAKE_DISCORD.token;
  const applicationId = options.applicationId ?? FAKE_DISCORD.applicationId;
  const botUserId = options.botUserId ?? FAKE_DISCORD.botUserId;
  const guilds = options.guilds ?? [
    {
      id: FAKE_DISCORD.guildId,
      name: "Fake Guild",
      channels: [{ id: FAKE_DISCORD.channelId, name: "general" }],
    },
  ];
  const users = new Map(Object.entries(options.users ?? {}));
  users.set(botUserId, { username: options.botUsername ?? FAKE_DISCORD.botUsername, bot: true });
  const calls: RecordedDiscordCall[] = [];
  const messages: DiscordMessage[] = [];
  const byId = new Map<string, DiscordMessage>();
  const nextId = snowflakes();
  const answered = new EventEmitter();
  const guildOf = (channelId: string) =>
    guilds.find((g) => g.channels.some((c) => c.id === channelId))?.id;
  const user = (id: string) =>
    userPayload(id, users.get(id) ?? { username: `user-${id.slice(-4)}` });
  let origin = "";

  const restState = {
    token,
    applicationId,
    applicationFlags: options.applicationFlags ?? 1 << 19,
    botUserId,
    users,
    calls,
    messages,
    byId,
    nextId,
    gatewayUrl: () => gateway.url,
    guildOf,
    guilds,
    rateLimits: [] as FakeRateLimit[],
    routeLimiter: options.routeLimits ? new DiscordRouteLimiter(options.routeLimits) : undefined,
    acknowledged: new Set<string>(),
    storeFile: (channelId: string, bytes: Uint8Array, filename: string, contentType?: string) =>
      storeFile(channelId, bytes, filename, contentType),
    defaultChannelId: () => guilds[0]?.channels[0]?.id ?? "0",
    onCall: (call: RecordedDiscordCall) => answered.emit("call", call),
  };
  const rest = createDiscordRest(restState);
  const files = new Map<string, Uint8Array>();
  /** An attachment as Discord's CDN holds it, its bytes served at its url. */
  const storeFile = (
    channel: string,
    bytes: Uint8Array,
    filename: string,
    contentType?: string,
  ): Record<string, unknown> => {
    const id = nextId();
    files.set(id, bytes);
    const path = `${origin}/attachments/${channel}/${id}/${encodeURIComponent(filename)}`;
    return {
      id,
      filename,
      size: bytes.byteLength,
      url: `${path}?ex=ffffffff&is=0&hm=fake`,
      proxy_url: path,
      ...(contentType ? { content_type: contentType } : {}),
    };
  };
  const fileDownloads: string[] = [];
  const server = await listenLocal(
    (req, res) => {
      const cdn = /^\/attachments\/\d+\/(\d+)\//.exec(req.url ?? "");
      if (!cdn) return rest(req, res);
      const bytes = files.get(cdn[1] ?? "");
      if (!bytes) return void res.writeHead(404).end();
      fileDownloads.push(cdn[1] ?? "");
      res.writeHead(200, { "content-length": bytes.byteLength }).end(bytes);
    },
    {
      onError: (res, error) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: `fake Discord failed: ${String(error)}`, code: 0 }));
      },
    },
  );
  origin = server.url;

  const gateway = await attachFakeGateway(server.server, origin, {
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    ready: () => ({
      v: 10,
      user: { ...user(botUserId), bot: true, verified: true, mfa_enabled: false },
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      // discord.js builds client.application from this; without it, READY throws.
      application: { id: applicationId, flags: 0 },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      user_settings: {},
      shard: [0, 1],
    }),
    guildCreates: () => guilds.map((g) => guildCreatePayload(g, user(botUserId))),
  });

  const dispatch = (eventName: string, data: unknown) => {
    if (gateway.dispatch(eventName, data) === 0) {
      throw new Error(
        `No discord.js client is connected to the fake gateway, so ${eventName} went nowhere: await client.login(fake.token) (and the "ready" event) first.`,
      );
    }
  };

  return {
    addFile: (bytes, filename, contentType) =>
      storeFile(FAKE_DISCORD.channelId, bytes, filename, contentType),
    fileDownloads,
    apiUrl: `${origin}/api`,
    gatewayUrl: gateway.url,
    token,
    applicationId,
    botUserId,
    guilds,
    users,
    calls,
    messages,
    gatewayFrames: gateway.received,
    get identifies() {
      return gateway.identifies;
    },
    get resumes() {
      return gateway.resumes;
    },
    dispatch,
    messageCreate: (input) => {
      const guildId = input.guildId ?? guildOf(input.channelId);
      const channel = guilds.flatMap((g) => g.channels).find((c) => c.id === input.channelId);
      const timestamp = new Date().toISOString();
      const referenced = input.replyTo ? byId.get(input.replyTo) : undefined;
      const message: DiscordMessage = {
        id: input.id ?? nextId(),
        channel_id: input.channelId,
        // discord.js types the channel it has not cached from channel_type; a DM
        // without it becomes a non-text partial and the message is dropped.
        channel_type: guildId ? (channel?.type ?? 0) : 1,
        ...(guildId ? { guild_id: guildId, member: memberPayload(timestamp) } : {}),
        author: user(input.authorId),
        content: input.content,
        timestamp,
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: mentions(restState, input.content),
        mention_roles: [],
        attachments: [],
        embeds: [],
        components: [],
        pinned: false,
        type: input.replyTo ? 19 : 0,
        flags: 0,
        ...(input.replyTo
          ? {
              message_reference: {
                type: 0,
                message_id: input.replyTo,
                channel_id: input.channelId,
                ...(guildId ? { guild_id: guildId } : {}),
              },
              referenced_message: referenced ?? null,
            }
          : {}),
        ...input.extra,
      };
      // A reply mentions the author it replies to, as Discord's default does.
      if (referenced && !message.mentions.some((m) => m.id === referenced.author.id)) {
        message.mentions.push(referenced.author);
      }
      byId.set(message.id, message);
      dispatch("MESSAGE_CREATE", message);
      return message;
    },
    routeLimiter: restState.routeLimiter,
    rateLimit: (method, path, retryAfter, times = 1) => {
      restState.rateLimits.push({ method, path, retryAfter, times });
    },
    reconnect: () => gateway.reconnect(),
    waitForCall: (method, path, { timeoutMs = 5_000, after = 0 } = {}) => {
      const matches = (call: RecordedDiscordCall) =>
        call.method === method && path.test(call.path) && call.status !== undefined;
      const seen = calls.slice(after).find(matches);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          answered.off("call", listener);
          const list = calls.map((c) => `${c.method} ${c.path}`).join(", ") || "none";
          reject(new Error(`No ${method} ${path} within ${timeoutMs} ms; calls so far: ${list}`));
        }, timeoutMs);
        const listener = (call: RecordedDiscordCall) => {
          if (!matches(call) || calls.indexOf(call) < after) return;
          clearTimeout(timer);
          answered.off("call", listener);
          resolve(call);
        };
        answered.on("call", listener);
      });
    },
    close: async () => {
      answered.removeAllListeners();
      await gateway.close();
      await server.close();
    },
  };
}
