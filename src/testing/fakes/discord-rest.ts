/**
 * The REST half of the fake Discord: the routes discord.js calls to log in,
 * post, edit, delete, type, register commands and answer interactions, under
 * `/api/v10`. Every request is recorded; a route the fake does not know
 * answers Discord's 404 (`{ message: "404: Not Found", code: 0 }`), so a test
 * sees in `calls` what it would need next.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DiscordRouteLimiter } from "./discord-limits.ts";
import {
  channelPayload,
  type DiscordMessage,
  type FakeDiscordGuild,
  type FakeDiscordUser,
  memberPayload,
  mentionedIds,
  rolesPayload,
  userPayload,
} from "./discord-model.ts";
import { readBytes } from "./local-server.ts";
import { type FormFile, isMultipart, parseMultipart } from "./multipart.ts";

export interface RecordedDiscordCall {
  method: string;
  /** Without the `/api/v10` prefix, e.g. "/channels/1300000000000000001/messages". */
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body (a multipart body's `payload_json`); tests read arbitrary fields. */
  body: JsonBody;
  /** A multipart body's file parts (`files[n]`), bytes and all. */
  files?: readonly FormFile[];
  /** From `Authorization: Bot …`. */
  token: string | undefined;
  /** The user id of the bot whose token (or, for an interaction's webhook, application) made the call. */
  bot?: string;
  at: number;
  /** Set once the fake has answered. */
  status?: number;
}

/** One bot the fake serves: its token, its user and its application. */
export interface FakeDiscordBotIdentity {
  readonly token: string;
  readonly applicationId: string;
  readonly botUserId: string;
  /** `flags` of `GET /applications/@me`: which privileged intents the portal has on. */
  readonly applicationFlags: number;
  /** The guilds it is a member of, by id; unset: every guild of the fake. */
  readonly guildIds?: ReadonlySet<string>;
  /** Discord's per-route buckets for this bot's token, when the fake holds them (discord-limits.ts). */
  readonly routeLimiter: DiscordRouteLimiter | undefined;
}

/** What the routes read and write; discord-api.ts owns it. */
export interface DiscordRestState {
  /** Every bot the fake serves, by token: a call is answered as the bot of its token. */
  bots: ReadonlyMap<string, FakeDiscordBotIdentity>;
  users: Map<string, FakeDiscordUser>;
  calls: RecordedDiscordCall[];
  /** Messages the bots posted, edited in place. */
  messages: DiscordMessage[];
  /** Every message by id: the bot's and those dispatched with `messageCreate`. */
  byId: Map<string, DiscordMessage>;
  nextId(): string;
  gatewayUrl(): string;
  guildOf(channelId: string): string | undefined;
  guilds: FakeDiscordGuild[];
  /** Where interaction replies are shown (the fake keeps no per-interaction channel). */
  defaultChannelId(): string;
  onCall(call: RecordedDiscordCall): void;
  rateLimits: FakeRateLimit[];
  /** Requests to hold unanswered until released, the next match of each (see `FakeDiscord.hold`). */
  holds: FakeHold[];
  /** Interactions already given their initial response: Discord refuses a second (40060). */
  acknowledged: Set<string>;
  /** Keeps an attachment's bytes on the CDN; returns the attachment object Discord sends. */
  storeFile(
    channelId: string,
    bytes: Uint8Array,
    filename: string,
    contentType?: string,
  ): Record<string, unknown>;
}

/** Attach Files: without it in a channel, Discord refuses a message with files (50013). */
const ATTACH_FILES = 1n << 15n;
/** What Discord takes from a bot in a server without boosts. */
const FILE_LIMIT = 10 * 1024 * 1024;

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies as discord.js sends them, read field by field
type JsonBody = any;

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The next `times` requests matching method and path answer 429 with `retryAfter` seconds. */
export interface FakeRateLimit {
  method: string;
  path: RegExp;
  retryAfter: number;
  times: number;
}

/** One request to hold: the next matching one waits for `released` before it is answered. */
export interface FakeHold {
  method: string;
  path: RegExp;
  arrived(call: RecordedDiscordCall): void;
  released: Promise<void>;
}

type Route = (
  params: string[],
  call: RecordedDiscordCall,
  state: DiscordRestState,
  bot: FakeDiscordBotIdentity,
) => Reply | undefined;

const ok = (body: unknown): Reply => ({ status: 200, body });
const noContent: Reply = { status: 204 };
const apiError = (status: number, code: number, message: string): Reply => ({
  status,
  body: { message, code },
});

const ROUTES: [string, RegExp, Route][] = [
  [
    "GET",
    /^\/gateway\/bot$/,
    (_, __, state) =>
      ok({
        url: state.gatewayUrl(),
        shards: 1,
        session_start_limit: {
          total: 1000,
          remaining: 999,
          reset_after: 14_400_000,
          max_concurrency: 1,
        },
      }),
  ],
  ["GET", /^\/gateway$/, (_, __, state) => ok({ url: state.gatewayUrl() })],
  ["GET", /^\/users\/@me$/, (_, __, state, bot) => ok(botUser(state, bot))],
  // The bot's DM channel with a person: one per person, its id derived from theirs ("14" for their "10").
  [
    "POST",
    /^\/users\/@me\/channels$/,
    (_, call, state) => {
      const recipient = String(call.body?.recipient_id ?? "");
      if (!/^\d+$/.test(recipient)) return apiError(400, 50035, "Invalid Form Body");
      const user = state.users.get(recipient) ?? { username: `user-${recipient.slice(-4)}` };
      return ok({
        id: `14${recipient.slice(2)}`,
        type: 1,
        last_message_id: null,
        recipients: [userPayload(recipient, user)],
      });
    },
  ],
  [
    "GET",
    /^\/applications\/@me$/,
    (_, __, state, bot) =>
      ok({
        id: bot.applicationId,
        name: botUser(state, bot).username,
        flags: bot.applicationFlags,
        bot: botUser(state, bot),
      }),
  ],
  [
    "POST",
    /^\/channels\/(\d+)\/messages$/,
    ([channelId], call, state, bot) => post(state, bot, channelId as string, call.body, call.files),
  ],
  [
    "PATCH",
    /^\/channels\/(\d+)\/messages\/(\d+)$/,
    ([channelId, messageId], call, state, bot) =>
      edit(state, bot, channelId as string, messageId as string, call.body),
  ],
  [
    "GET",
    /^\/channels\/(\d+)\/messages\/(\d+)$/,
    ([channelId, messageId], _, state) => {
      const message = state.byId.get(messageId as string);
      return message?.channel_id === channelId
        ? ok(message)
        : apiError(404, 10008, "Unknown Message");
    },
  ],
  [
    "DELETE",
    /^\/channels\/(\d+)\/messages\/(\d+)$/,
    ([channelId, messageId], _, state, bot) => {
      const message = state.byId.get(messageId as string);
      if (!message || message.channel_id !== channelId) {
        return apiError(404, 10008, "Unknown Message");
      }
      // Another's message takes Manage Messages, which the fake's bots are never given.
      if (message.author.id !== bot.botUserId) return apiError(403, 50013, "Missing Permissions");
      state.byId.delete(message.id);
      state.messages.splice(state.messages.indexOf(message), 1);
      return noContent;
    },
  ],
  ["POST", /^\/channels\/(\d+)\/typing$/, () => noContent],
  [
    "GET",
    /^\/guilds\/(\d+)$/,
    ([guildId], _, state) => {
      const guild = state.guilds.find((g) => g.id === guildId);
      if (!guild) return apiError(404, 10004, "Unknown Guild");
      return ok({
        id: guild.id,
        name: guild.name,
        owner_id: guild.ownerId ?? "1000000000000000001",
        roles: rolesPayload(guild),
      });
    },
  ],
  [
    "GET",
    /^\/channels\/(\d+)$/,
    ([channelId], _, state) => {
      for (const guild of state.guilds) {
        const index = guild.channels.findIndex((c) => c.id === channelId);
        const channel = guild.channels[index];
        if (channel) return ok(channelPayload(guild.id, channel, index));
      }
      return apiError(404, 10003, "Unknown Channel");
    },
  ],
  [
    "GET",
    /^\/guilds\/(\d+)\/channels$/,
    ([guildId], _, state) => {
      const guild = state.guilds.find((g) => g.id === guildId);
      if (!guild) return apiError(404, 10004, "Unknown Guild");
      // Threads are not guild channels on this route, as in Discord.
      return ok(
        guild.channels
          .map((c, i) => channelPayload(guild.id, c, i))
          .filter((c) => c.type !== 11 && c.type !== 12),
      );
    },
  ],
  [
    "GET",
    /^\/guilds\/(\d+)\/members\/(\d+)$/,
    ([guildId, userId], _, state) => {
      const guild = state.guilds.find((g) => g.id === guildId);
      if (!guild) return apiError(404, 10004, "Unknown Guild");
      const id = userId as string;
      const listed = guild.members?.[id];
      const aBotHere = [...state.bots.values()].some(
        (b) => b.botUserId === id && memberOf(b, guild.id),
      );
      if (!listed && guild.members && !aBotHere) {
        return apiError(404, 10007, "Unknown Member");
      }
      const user = state.users.get(id) ?? { username: `user-${id.slice(-4)}` };
      return ok({
        ...memberPayload(new Date().toISOString()),
        roles: listed?.roles ?? [],
        user: userPayload(id, user),
      });
    },
  ],
  [
    "PUT",
    /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/,
    ([appId, guildId], call, state, bot) =>
      overwriteCommands(state, bot, appId as string, call.body, guildId),
  ],
  [
    "PUT",
    /^\/applications\/(\d+)\/commands$/,
    ([appId], call, state, bot) =>
      overwriteCommands(state, bot, appId as string, call.body, undefined),
  ],
];

export function createDiscordRest(state: DiscordRestState) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname.replace(/^\/api\/v\d+/, "");
    const bytes = await readBytes(req);
    const contentType = req.headers["content-type"];
    const form = isMultipart(contentType) ? await parseMultipart(contentType, bytes) : undefined;
    const raw = form ? (form.fields.payload_json ?? "") : bytes.toString("utf8");
    const call: RecordedDiscordCall = {
      method: req.method ?? "GET",
      path,
      query: Object.fromEntries(url.searchParams),
      body: raw === "" ? undefined : parseJson(raw),
      ...(form ? { files: form.files } : {}),
      token: /^Bot (.+)$/.exec(req.headers.authorization ?? "")?.[1],
      at: Date.now(),
    };
    const bot = state.bots.get(call.token ?? "");
    if (bot) call.bot = bot.botUserId;
    const hold = state.holds.find((h) => h.method === call.method && h.path.test(call.path));
    if (hold) {
      state.holds.splice(state.holds.indexOf(hold), 1);
      hold.arrived(call);
      await hold.released;
    }
    state.calls.push(call);
    const reply = limited(call, state) ?? routeLimited(call, state) ?? answer(call, state);
    call.status = reply.status;
    send(res, reply);
    state.onCall(call);
  };
}

/**
 * Interaction follow-ups go to the application's webhook, authorized by the
 * interaction token in the path rather than the bot token: the reply a
 * deferred slash command edits in (`@original`) and follow-up messages.
 */
function webhook(call: RecordedDiscordCall, state: DiscordRestState): Reply | undefined {
  // The interaction callback is authorized by the interaction's token too, not the bot's.
  // Without `with_response`, Discord answers it with an empty 204.
  const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(call.path);
  if (callback && call.method === "POST") {
    // An interaction takes one initial response; Discord refuses any further one.
    if (state.acknowledged.has(callback[1] as string)) {
      return apiError(400, 40060, "Interaction has already been acknowledged.");
    }
    state.acknowledged.add(callback[1] as string);
    return call.query.with_response === "true"
      ? ok({ interaction: { id: callback[1], type: 2 }, resource: { type: call.body?.type } })
      : noContent;
  }
  const match = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/(?:@|%40)original)?$/.exec(call.path);
  if (!match) return undefined;
  const bot = [...state.bots.values()].find((b) => b.applicationId === match[1]);
  if (!bot) return apiError(404, 10015, "Unknown Webhook");
  call.bot = bot.botUserId;
  if (call.method === "GET" || call.method === "DELETE")
    return call.method === "GET" ? ok({}) : noContent;
  const channelId = state.defaultChannelId();
  const reply = post(state, bot, channelId, { ...(call.body ?? {}), message_reference: undefined });
  if (reply.status === 200) {
    const message = reply.body as DiscordMessage;
    message.flags = 64;
    message.interaction_token = match[2];
  }
  return reply;
}

function answer(call: RecordedDiscordCall, state: DiscordRestState): Reply {
  const hooked = webhook(call, state);
  if (hooked) return hooked;
  const bot = state.bots.get(call.token ?? "");
  if (!bot) return apiError(401, 0, "401: Unauthorized");
  const outside = outsideGuild(call.path, state, bot);
  if (outside) return outside;
  for (const [method, pattern, route] of ROUTES) {
    const match = pattern.exec(call.path);
    if (match && method === call.method) {
      return route(match.slice(1), call, state, bot) ?? apiError(404, 0, "404: Not Found");
    }
  }
  return apiError(404, 0, "404: Not Found");
}

function memberOf(bot: FakeDiscordBotIdentity, guildId: string): boolean {
  return bot.guildIds === undefined || bot.guildIds.has(guildId);
}

/** A bot sees only the guilds it is in: another guild and its channels answer Missing Access. */
function outsideGuild(
  path: string,
  state: DiscordRestState,
  bot: FakeDiscordBotIdentity,
): Reply | undefined {
  const guildId =
    /^\/guilds\/(\d+)/.exec(path)?.[1] ?? state.guildOf(/^\/channels\/(\d+)/.exec(path)?.[1] ?? "");
  if (guildId === undefined || memberOf(bot, guildId)) return undefined;
  if (!state.guilds.some((g) => g.id === guildId)) return undefined;
  return apiError(403, 50001, "Missing Access");
}

/** A 429 as Discord sends it: retry_after in the body and the headers, the bucket exhausted. */
function limited(call: RecordedDiscordCall, state: DiscordRestState): Reply | undefined {
  const limit = state.rateLimits.find(
    (l) => l.times > 0 && l.method === call.method && l.path.test(call.path),
  );
  if (!limit) return undefined;
  limit.times--;
  return {
    status: 429,
    body: { message: "You are being rate limited.", retry_after: limit.retryAfter, global: false },
    headers: {
      "retry-after": String(Math.ceil(limit.retryAfter)),
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset-after": String(limit.retryAfter),
      "x-ratelimit-bucket": "fake-bucket",
      "x-ratelimit-scope": "user",
    },
  };
}

/**
 * The call against its route's bucket: a 429 when the bucket is empty, else
 * the answer with the bucket's headers added (undefined here: answered below).
 */
function routeLimited(call: RecordedDiscordCall, state: DiscordRestState): Reply | undefined {
  const limiter = state.bots.get(call.token ?? "")?.routeLimiter;
  if (!limiter) return undefined;
  const verdict = limiter.check(call.method, call.path);
  if (!verdict) return undefined;
  if (verdict.retryAfter === undefined) {
    const reply = answer(call, state);
    return { ...reply, headers: { ...verdict.headers, ...reply.headers } };
  }
  return {
    status: 429,
    body: {
      message: "You are being rate limited.",
      retry_after: verdict.retryAfter,
      global: false,
    },
    headers: verdict.headers,
  };
}

function botUser(state: DiscordRestState, bot: FakeDiscordBotIdentity) {
  const user = state.users.get(bot.botUserId) ?? { username: "bot", bot: true };
  return { ...userPayload(bot.botUserId, user), verified: true, mfa_enabled: false };
}

function post(
  state: DiscordRestState,
  bot: FakeDiscordBotIdentity,
  channelId: string,
  body: JsonBody,
  files: readonly FormFile[] = [],
): Reply {
  const content = typeof body?.content === "string" ? body.content : "";
  if (state.guilds.some((g) => g.channels.some((c) => c.id === channelId && c.gone))) {
    return apiError(404, 10003, "Unknown Channel");
  }
  const refused = files.length > 0 ? refuseFiles(state, bot, channelId, files) : undefined;
  if (refused) return refused;
  if (content.length > 2000) {
    return {
      status: 400,
      body: {
        message: "Invalid Form Body",
        code: 50035,
        errors: {
          content: {
            _errors: [
              { code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." },
            ],
          },
        },
      },
    };
  }
  // Discord: with enforce_nonce, a nonce the same author used in the last few minutes
  // answers with the message it made then, and nothing new is posted.
  if (body?.enforce_nonce === true && body.nonce !== undefined) {
    const made = state.messages.find(
      (m) => m.channel_id === channelId && m.nonce === body.nonce && m.author.id === bot.botUserId,
    );
    if (made) return ok(made);
  }
  const reference = body?.message_reference;
  const guildId = state.guildOf(channelId);
  const message: DiscordMessage = {
    id: state.nextId(),
    channel_id: channelId,
    ...(guildId ? { guild_id: guildId } : {}),
    author: botUser(state, bot),
    content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: Boolean(body?.tts),
    mention_everyone: false,
    mentions: mentions(state, content),
    mention_roles: [],
    attachments: files.map((f) => state.storeFile(channelId, f.bytes, f.filename, f.type)),
    embeds: body?.embeds ?? [],
    components: body?.components ?? [],
    pinned: false,
    type: reference ? 19 : 0,
    flags: body?.flags ?? 0,
    ...(reference ? { message_reference: { type: 0, channel_id: channelId, ...reference } } : {}),
    ...(body?.nonce !== undefined ? { nonce: body.nonce } : {}),
  };
  if (reference?.message_id) {
    const referenced = state.byId.get(reference.message_id);
    if (!referenced && reference.fail_if_not_exists !== false) {
      return apiError(400, 50035, "Invalid Form Body: Unknown message");
    }
    message.referenced_message = referenced ?? null;
  }
  state.messages.push(message);
  state.byId.set(message.id, message);
  return ok(message);
}

/** Why Discord would refuse these files here: Attach Files denied, or a file over the limit. */
function refuseFiles(
  state: DiscordRestState,
  bot: FakeDiscordBotIdentity,
  channelId: string,
  files: readonly FormFile[],
): Reply | undefined {
  const guildId = state.guildOf(channelId);
  const channel = state.guilds.flatMap((g) => g.channels).find((c) => c.id === channelId);
  const denied = channel?.overwrites?.some(
    (o) => (o.id === guildId || o.id === bot.botUserId) && (BigInt(o.deny) & ATTACH_FILES) !== 0n,
  );
  if (denied) return apiError(403, 50013, "Missing Permissions");
  if (files.some((f) => f.bytes.byteLength > FILE_LIMIT)) {
    return apiError(413, 40005, "Request entity too large");
  }
  return undefined;
}

function edit(
  state: DiscordRestState,
  bot: FakeDiscordBotIdentity,
  channelId: string,
  messageId: string,
  body: JsonBody,
): Reply {
  const message = state.byId.get(messageId);
  if (!message || message.channel_id !== channelId) return apiError(404, 10008, "Unknown Message");
  if (message.author.id !== bot.botUserId) {
    return apiError(403, 50005, "Cannot edit a message authored by another user");
  }
  if (typeof body?.content === "string") {
    message.content = body.content;
    message.mentions = mentions(state, body.content);
  }
  if (body?.embeds !== undefined) message.embeds = body.embeds;
  if (body?.components !== undefined) message.components = body.components;
  message.edited_timestamp = new Date().toISOString();
  return ok(message);
}

function overwriteCommands(
  state: DiscordRestState,
  bot: FakeDiscordBotIdentity,
  appId: string,
  body: JsonBody,
  guildId?: string,
): Reply {
  if (appId !== bot.applicationId) return apiError(403, 50001, "Missing Access");
  if (!Array.isArray(body)) return apiError(400, 50035, "Invalid Form Body: expected an array");
  return ok(
    body.map((command: Record<string, unknown>) => ({
      type: 1,
      description: "",
      options: [],
      default_member_permissions: null,
      dm_permission: true,
      nsfw: false,
      ...command,
      id: state.nextId(),
      application_id: appId,
      version: state.nextId(),
      ...(guildId ? { guild_id: guildId } : {}),
    })),
  );
}

export function mentions(state: DiscordRestState, content: string) {
  return mentionedIds(content).map((id) =>
    userPayload(id, state.users.get(id) ?? { username: `user-${id.slice(-4)}` }),
  );
}

function send(res: ServerResponse, reply: Reply) {
  // A 204 must carry no content-type: @discordjs/rest would try to parse the empty body as JSON.
  if (reply.status === 204) return void res.writeHead(204).end();
  const body = JSON.stringify(reply.body ?? null);
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...reply.headers,
  });
  res.end(body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
