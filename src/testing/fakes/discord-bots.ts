/**
 * The bots of the fake Discord (discord-api.ts): each token its own user and
 * application, and what a test does with one of them (`account(token)`):
 * its gateway sessions, its REST calls, its messages. Guilds, channels and
 * messages are one world, as on Discord.
 */
import type { EventEmitter } from "node:events";
import type { FakeGateway } from "./discord-gateway.ts";
import type { DiscordRouteLimiter } from "./discord-limits.ts";
import type { DiscordMessage, FakeDiscordUser } from "./discord-model.ts";
import type { FakeDiscordBotIdentity, RecordedDiscordCall } from "./discord-rest.ts";

/** `GATEWAY_MESSAGE_CONTENT_LIMITED`: the Message Content intent on in the Developer Portal. */
export const MESSAGE_CONTENT_LIMITED = 1 << 19;

/** One more bot of the fake (several bot accounts in one deployment). */
export interface FakeDiscordBotOptions {
  readonly token: string;
  readonly applicationId: string;
  readonly botUserId: string;
  /** Defaults to `bot-` and the last digits of its user id. */
  readonly botUsername?: string;
  /** As `FakeDiscordOptions.applicationFlags`. */
  readonly applicationFlags?: number;
  /** The guilds it is in, by id; unset: every guild of the fake. */
  readonly guilds?: readonly string[];
}

/**
 * What a test does with one bot of the fake: its own gateway sessions and
 * the REST calls its token made. Guilds, channels and messages are shared,
 * as on Discord: a message in a guild channel reaches every bot in that guild.
 */
export interface FakeDiscordBot {
  readonly token: string;
  readonly applicationId: string;
  readonly botUserId: string;
  /** REST calls made with this bot's token (or to its application's webhook), in arrival order. */
  readonly calls: readonly RecordedDiscordCall[];
  /** Messages this bot posted, as last edited. */
  readonly messages: readonly DiscordMessage[];
  readonly identifies: number;
  readonly resumes: number;
  /** Sends a gateway DISPATCH to this bot's sessions only; throws if none is connected. */
  dispatch(eventName: string, data: unknown): void;
  /**
   * A person writes: a guild channel's message reaches every bot in the
   * guild; a message in no guild is a DM with this bot.
   */
  messageCreate(input: MessageCreateInput): DiscordMessage;
  /** The same MESSAGE_CREATE again, to this bot only, as a replay after a RESUME delivers it. */
  redeliver(message: DiscordMessage): void;
  /** As `FakeDiscord.waitForCall`, among this bot's calls. */
  waitForCall(
    method: string,
    path: RegExp,
    options?: { timeoutMs?: number; after?: number },
  ): Promise<RecordedDiscordCall>;
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

export interface WaitForCallOptions {
  timeoutMs?: number;
  /** Skip this many calls (of those `whose` accepts) before looking. */
  after?: number;
}

/**
 * The default bot and `more`, by token, each bot's user added to `users`;
 * `limiter` gives each token its own route buckets.
 */
export function fakeBots(
  main: Omit<FakeDiscordBotIdentity, "routeLimiter"> & { botUsername: string },
  more: readonly FakeDiscordBotOptions[],
  users: Map<string, FakeDiscordUser>,
  limiter: () => DiscordRouteLimiter | undefined,
): ReadonlyMap<string, FakeDiscordBotIdentity> {
  const bots = new Map<string, FakeDiscordBotIdentity>();
  const add = (bot: Omit<FakeDiscordBotIdentity, "routeLimiter">, username: string) => {
    if (bots.has(bot.token)) {
      throw new Error(
        `Two bots of the fake Discord have the token ${bot.token}: give each its own.`,
      );
    }
    bots.set(bot.token, { ...bot, routeLimiter: limiter() });
    users.set(bot.botUserId, { username, bot: true });
  };
  const { botUsername, ...identity } = main;
  add(identity, botUsername);
  for (const bot of more) {
    add(
      {
        token: bot.token,
        applicationId: bot.applicationId,
        botUserId: bot.botUserId,
        applicationFlags: bot.applicationFlags ?? MESSAGE_CONTENT_LIMITED,
        ...(bot.guilds ? { guildIds: new Set(bot.guilds) } : {}),
      },
      bot.botUsername ?? `bot-${bot.botUserId.slice(-4)}`,
    );
  }
  return bots;
}

/** Resolves with the first answered call matching method and path, among those `whose` accepts. */
export function waitForDiscordCall(
  calls: readonly RecordedDiscordCall[],
  answered: EventEmitter,
  method: string,
  path: RegExp,
  { timeoutMs = 5_000, after = 0 }: WaitForCallOptions = {},
  whose: (call: RecordedDiscordCall) => boolean = () => true,
): Promise<RecordedDiscordCall> {
  const matches = (call: RecordedDiscordCall) =>
    whose(call) && call.method === method && path.test(call.path) && call.status !== undefined;
  const seen = calls.filter(whose).slice(after).find(matches);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      answered.off("call", listener);
      const list =
        calls
          .filter(whose)
          .map((c) => `${c.method} ${c.path}`)
          .join(", ") || "none";
      reject(new Error(`No ${method} ${path} within ${timeoutMs} ms; calls so far: ${list}`));
    }, timeoutMs);
    const listener = (call: RecordedDiscordCall) => {
      if (!matches(call) || calls.filter(whose).indexOf(call) < after) return;
      clearTimeout(timer);
      answered.off("call", listener);
      resolve(call);
    };
    answered.on("call", listener);
  });
}

/** What {@link botView} reads and drives of the fake. */
export interface FakeDiscordWorld {
  readonly calls: readonly RecordedDiscordCall[];
  readonly messages: readonly DiscordMessage[];
  readonly gateway: FakeGateway;
  dispatchTo(eventName: string, data: unknown, to?: (token: string) => boolean): void;
  /** A person's message; in no guild, a DM with `dmWith`. */
  messageCreate(input: MessageCreateInput, dmWith: FakeDiscordBotIdentity): DiscordMessage;
  waitFor(
    method: string,
    path: RegExp,
    options: WaitForCallOptions | undefined,
    whose: (call: RecordedDiscordCall) => boolean,
  ): Promise<RecordedDiscordCall>;
}

/** One bot of the fake as a test drives it. */
export function botView(
  token: string,
  bots: ReadonlyMap<string, FakeDiscordBotIdentity>,
  world: FakeDiscordWorld,
): FakeDiscordBot {
  const bot = bots.get(token);
  if (!bot) throw new Error(`The fake Discord serves no bot with the token ${token}.`);
  const own = (call: RecordedDiscordCall) => call.bot === bot.botUserId;
  const only = (t: string) => t === token;
  return {
    token,
    applicationId: bot.applicationId,
    botUserId: bot.botUserId,
    get calls() {
      return world.calls.filter(own);
    },
    get messages() {
      return world.messages.filter((m) => m.author.id === bot.botUserId);
    },
    get identifies() {
      return world.gateway.countsOf(token).identifies;
    },
    get resumes() {
      return world.gateway.countsOf(token).resumes;
    },
    dispatch: (eventName, data) => world.dispatchTo(eventName, data, only),
    messageCreate: (input) => world.messageCreate(input, bot),
    redeliver: (message) => world.dispatchTo("MESSAGE_CREATE", message, only),
    waitForCall: (method, path, options) => world.waitFor(method, path, options, own),
  };
}
