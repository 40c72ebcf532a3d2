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
 *
 * More bots share the same guilds and server (`bots`), each with its own
 * token, user, application and gateway sessions, as several bot accounts of
 * one deployment see Discord:
 *
 * @example
 * const fake = await startFakeDiscord({ bots: [{ token: "support-token",
 *   applicationId: "1100000000000000002", botUserId: "1100000000000000002" }] });
 * const support = fake.account("support-token");
 * // a message in a guild channel reaches every bot in the guild; this one mentions the second
 * support.messageCreate({ channelId: FAKE_DISCORD.channelId, authorId: "1000000000000000002",
 *   content: `<@${support.botUserId}> hello` });
 * const post = await support.waitForCall("POST", /\/channels\/\d+\/messages$/);
 */
import { EventEmitter } from "node:events";
import {
  botView,
  type FakeDiscordBot,
  type FakeDiscordBotOptions,
  fakeBots,
  MESSAGE_CONTENT_LIMITED,
  type MessageCreateInput,
  waitForDiscordCall,
} from "./discord-bots.ts";
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
  type FakeDiscordBotIdentity,
  type FakeHold,
  type FakeRateLimit,
  mentions,
  type RecordedDiscordCall,
} from "./discord-rest.ts";
import { listenLocal } from "./local-server.ts";

export {
  type DiscordMessage,
  FAKE_DISCORD,
  type FakeDiscordBot,
  type FakeDiscordBotOptions,
  type FakeDiscordGuild,
  type FakeDiscordUser,
  type MessageCreateInput,
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
  /** More bots than the default one, on the same guilds; `FakeDiscord.account(token)` drives each. */
  bots?: readonly FakeDiscordBotOptions[];
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
  /** Every REST request in arrival order, including refused ones, of every bot. */
  calls: RecordedDiscordCall[];
  /** Messages the bots posted, updated in place by their edits. */
  messages: DiscordMessage[];
  /** Frames the clients sent over the gateway. */
  gatewayFrames: GatewayFrame[];
  /** IDENTIFYs and RESUMEs, of every bot. */
  readonly identifies: number;
  readonly resumes: number;
  /** Sends a gateway DISPATCH to every connected client; throws if none is connected. */
  dispatch(eventName: string, data: unknown): void;
  /**
   * Dispatches a MESSAGE_CREATE shaped like Discord's and returns its
   * payload: to every bot in the channel's guild, or, in no guild, as a DM
   * with the default bot.
   */
  messageCreate(input: MessageCreateInput): DiscordMessage;
  /** One bot by its token: the default one (`token`) or one of `options.bots`. */
  account(token: string): FakeDiscordBot;
  /** The next `times` matching requests answer 429 with `retry_after` (seconds). */
  rateLimit(method: string, path: RegExp, retryAfterSec: number, times?: number): void;
  /**
   * Holds the next matching request unanswered, as a slow network or a
   * client's queue holds a call, until `release()`: `arrived` resolves with
   * it when it comes. It joins `calls` (and takes effect) once released, so
   * calls made meanwhile are answered first.
   *
   * @example
   * const held = fake.hold("POST", /\/channels\/\d+\/messages$/);
   * const call = await held.arrived; // the post is here, and nothing is made yet
   * held.release();                  // made now, after whatever came meanwhile
   */
  hold(
    method: string,
    path: RegExp,
  ): { readonly arrived: Promise<RecordedDiscordCall>; release(): void };
  /** The default bot's route buckets: refusals and the calls made during a wait; set with `routeLimits`. */
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
  const users = new Map(Object.entries(options.users ?? {}));
  const bots = fakeBots(
    {
      token,
      applicationId: options.applicationId ?? FAKE_DISCORD.applicationId,
      botUserId: options.botUserId ?? FAKE_DISCORD.botUserId,
      botUsername: options.botUsername ?? FAKE_DISCORD.botUsername,
      applicationFlags: options.applicationFlags ?? MESSAGE_CONTENT_LIMITED,
    },
    options.bots ?? [],
    users,
    () => (options.routeLimits ? new DiscordRouteLimiter(options.routeLimits) : undefined),
  );
  const main = bots.get(token) as FakeDiscordBotIdentity;
  const guilds = options.guilds ?? [
    {
      id: FAKE_DISCORD.guildId,
      name: "Fake Guild",
      channels: [{ id: FAKE_DISCORD.channelId, name: "general" }],
    },
  ];
  const calls: RecordedDiscordCall[] = [];
  const messages: DiscordMessage[] = [];
  const byId = new Map<string, DiscordMessage>();
  const nextId = snowflakes();
  const answered = new EventEmitter();
  /** Lets go of held requests (see `hold`), all of them at close. */
  const releases: (() => void)[] = [];
  const guildOf = (channelId: string) =>
    guilds.find((g) => g.channels.some((c) => c.id === channelId))?.id;
  const user = (id: string) =>
    userPayload(id, users.get(id) ?? { username: `user-${id.slice(-4)}` });
  const inGuild = (bot: FakeDiscordBotIdentity, guildId: string) =>
    bot.guildIds === undefined || bot.guildIds.has(guildId);
  let origin = "";

  const restState = {
    bots,
    users,
    calls,
    messages,
    byId,
    nextId,
    gatewayUrl: () => gateway.url,
    guildOf,
    guilds,
    rateLimits: [] as FakeRateLimit[],
    holds: [] as FakeHold[],
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

  const botOf = (identify: Record<string, unknown>) => bots.get(String(identify.token));
  const gateway = await attachFakeGateway(server.server, origin, {
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    ready: (identify) => {
      const bot = botOf(identify);
      if (!bot) return undefined;
      return {
        v: 10,
        user: { ...user(bot.botUserId), bot: true, verified: true, mfa_enabled: false },
        guilds: guilds
          .filter((g) => inGuild(bot, g.id))
          .map((g) => ({ id: g.id, unavailable: true })),
        // discord.js builds client.application from this; without it, READY throws.
        application: { id: bot.applicationId, flags: 0 },
        private_channels: [],
        relationships: [],
        presences: [],
        guild_join_requests: [],
        geo_ordered_rtc_regions: [],
        user_settings: {},
        shard: [0, 1],
      };
    },
    guildCreates: (identify) => {
      const bot = botOf(identify);
      if (!bot) return [];
      return guilds
        .filter((g) => inGuild(bot, g.id))
        .map((g) => guildCreatePayload(g, user(bot.botUserId)));
    },
  });

  const dispatchTo = (eventName: string, data: unknown, to?: (token: string) => boolean) => {
    if (gateway.dispatch(eventName, data, to) === 0) {
      throw new Error(
        `No discord.js client is connected to the fake gateway, so ${eventName} went nowhere: await client.login(fake.token) (and the "ready" event) first.`,
      );
    }
  };
  const dispatch = (eventName: string, data: unknown) => dispatchTo(eventName, data);

  /** A person's message: to every bot in its guild, or, in no guild, a DM with `dmWith`. */
  const messageCreate = (input: MessageCreateInput, dmWith: FakeDiscordBotIdentity) => {
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
    dispatchTo("MESSAGE_CREATE", message, (token) => {
      const bot = bots.get(token);
      return guildId ? bot !== undefined && inGuild(bot, guildId) : token === dmWith.token;
    });
    return message;
  };

  return {
    addFile: (bytes, filename, contentType) =>
      storeFile(FAKE_DISCORD.channelId, bytes, filename, contentType),
    fileDownloads,
    apiUrl: `${origin}/api`,
    gatewayUrl: gateway.url,
    token: main.token,
    applicationId: main.applicationId,
    botUserId: main.botUserId,
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
    messageCreate: (input) => messageCreate(input, main),
    account: (token) =>
      botView(token, bots, {
        calls,
        messages,
        gateway,
        dispatchTo,
        messageCreate,
        waitFor: (method, path, options, whose) =>
          waitForDiscordCall(calls, answered, method, path, options, whose),
      }),
    routeLimiter: main.routeLimiter,
    rateLimit: (method, path, retryAfter, times = 1) => {
      restState.rateLimits.push({ method, path, retryAfter, times });
    },
    hold: (method, path) => {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      releases.push(release);
      const arrived = new Promise<RecordedDiscordCall>((resolve) => {
        restState.holds.push({ method, path, arrived: resolve, released });
      });
      return { arrived, release };
    },
    reconnect: () => gateway.reconnect(),
    waitForCall: (method, path, options) =>
      waitForDiscordCall(calls, answered, method, path, options),
    close: async () => {
      // A request still held would keep its connection, and the server, open.
      for (const release of releases) release();
      answered.removeAllListeners();
      await gateway.close();
      await server.close();
    },
  };
}
