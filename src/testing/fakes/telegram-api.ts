/**
 * A local Telegram Bot API that a real grammY bot talks to through
 * `apiRoot` (`http://127.0.0.1:<port>`, no trailing slash): `/bot<token>/<method>`
 * with JSON or query parameters, answering `{ ok, result }` or
 * `{ ok: false, error_code, description, parameters }` as Telegram does.
 *
 * Updates follow Telegram's delivery rules (see telegram-updates.ts): long
 * polling honours `offset` and `timeout` and parks requests; with a webhook
 * set, updates are posted to it with the secret token until it answers 2xx.
 * Sent text is parsed as Telegram parses HTML (telegram-html.ts), so invalid
 * markup or an over-long message is the 400 Telegram would answer. Every
 * call is recorded.
 *
 * @example
 * const telegram = await startFakeTelegram();
 * const bot = new Bot(telegram.token, { client: { apiRoot: telegram.apiRoot } });
 * telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
 * // ... bot polls, answers; then:
 * telegram.botMessages(ALICE.id); // [{ text: "…", reply_to_message: { … } }]
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { BotCommand, Message, Update, User } from "grammy/types";
import { listenLocal, readBytes } from "./local-server.ts";
import { isMultipart } from "./multipart.ts";
import {
  ChatBook,
  type FakeChat,
  type Params,
  type StoredDraft,
  type StoredMessage,
  type UserMessage,
} from "./telegram-chats.ts";
import { FloodLedger, type TelegramLimits } from "./telegram-limits.ts";
import {
  BotApiError,
  postUpdate,
  UpdateQueue,
  type WebhookDelivery,
  type WebhookSetting,
} from "./telegram-updates.ts";
import { type HeldFile, multipartParams, uploadMethods } from "./telegram-uploads.ts";

export type { FakeChat, StoredDraft, StoredMessage, UserMessage } from "./telegram-chats.ts";

export const FAKE_TELEGRAM = {
  token: "7000000001:AAFakeTokenForSwitchyardTests_x9Yk2LmNoPqR",
  bot: {
    id: 7000000001,
    is_bot: true as const,
    first_name: "Switchyard",
    username: "switchyard_bot",
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
  },
};

/** The actions sendChatAction takes (Bot API, "sendChatAction"); any other is a 400. */
const CHAT_ACTIONS: ReadonlySet<string> = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

export interface RecordedTelegramCall {
  method: string;
  /** The id of the bot whose token made the call. */
  bot?: number;
  params: Params;
  at: number;
  /** The HTTP status answered: 200, or the error code. */
  status?: number;
  description?: string;
  /** `Date.now()` when the fake carried the call out (with a round trip, half way through it). */
  appliedAt?: number;
  /** The caller was gone (its process killed) before the answer reached it: it never learned the outcome. */
  clientGone?: boolean;
  /** `Date.now()` when the fake answered. */
  answeredAt?: number;
}

/** Another bot the fake serves (several bot accounts in one deployment): its token and its `getMe`. */
export interface FakeBotAccount {
  readonly token: string;
  readonly bot: typeof FAKE_TELEGRAM.bot;
}

/**
 * What a test does with one more bot of the fake: its own chats, updates
 * and messages, as Telegram keeps them per bot. A person's chat id is the
 * same with every bot (their user id), its messages are not.
 */
export interface FakeTelegramBot {
  readonly token: string;
  readonly bot: typeof FAKE_TELEGRAM.bot;
  /** Calls made with this bot's token. */
  readonly calls: readonly RecordedTelegramCall[];
  readonly pending: readonly Update[];
  callsTo(method: string): RecordedTelegramCall[];
  addChat(chat: FakeChat): void;
  userSends(input: { chat: number; from: User; text?: string }): Update;
  redeliver(update: Update): void;
  botMessages(chat: number): StoredMessage[];
}

export interface FakeTelegramOptions {
  /** More bots than the default one ({@link FAKE_TELEGRAM}); `FakeTelegram.account(token)` drives each. */
  bots?: readonly FakeBotAccount[];
  /**
   * A Bot API round trip per call, in ms (default 0). Telegram carries the
   * call out half way through it and answers at the end, as over a real
   * network: a caller killed in the second half never hears that its message
   * was sent. `getUpdates` pays only the way back, so a parked poll still
   * wakes at once. Chaos tests kill workers inside this window.
   */
  roundTripMs?: number;
  /**
   * Telegram's flood control (telegram-limits.ts; `TELEGRAM_LIMITS` for the
   * published figures): calls past a limit are answered 429 with
   * `retry_after`. Off by default.
   */
  limits?: TelegramLimits;
}

export interface FakeTelegram {
  /** For grammY's `apiRoot`: no trailing slash. */
  readonly apiRoot: string;
  readonly token: string;
  readonly calls: RecordedTelegramCall[];
  /** Every message in every chat, people's and the bot's, the bot's as last edited. */
  readonly messages: readonly StoredMessage[];
  /** Every draft the bot streamed (sendMessageDraft), in order; drafts are not messages. */
  readonly drafts: readonly StoredDraft[];
  readonly deliveries: readonly WebhookDelivery[];
  /** Updates Telegram still holds (not confirmed by an offset or a webhook's 2xx). */
  readonly pending: readonly Update[];
  readonly webhook: WebhookSetting | undefined;
  callsTo(method: string): RecordedTelegramCall[];
  addChat(chat: FakeChat): void;
  createTopic(chat: number, name: string, by: User): number;
  /** A person sends a message; returns its update. */
  userSends(input: UserMessage): Update;
  /**
   * Delivers an update exactly as given (a fixture), keeping its
   * `update_id`; its message is stored (so the bot can reply to it) and its
   * callback query can be answered.
   */
  sendUpdate(update: Update): Update;
  /** A person presses an inline keyboard button of the bot's message. */
  pressButton(input: { from: User; message: Message; data: string }): Update;
  redeliver(update: Update): void;
  /** Posts an update to the webhook directly, with this secret (or none); returns the status. */
  postToWebhook(update: Update, secret: string | undefined): Promise<number>;
  botMessages(chat: number, topic?: number): StoredMessage[];
  commandsFor(scope?: { type: string; chat_id?: number | string }): BotCommand[];
  /** The next call of `method` fails like this (a 429 with retry_after, a 500...). */
  failNext(method: string, error: { code: number; description: string; retryAfter?: number }): void;
  /** Calls that arrived and are not answered yet (held by the round trip), long polls aside. */
  inFlight(): RecordedTelegramCall[];
  /** One more bot of `options.bots`, by its token. */
  account(token: string): FakeTelegramBot;
  /** Changes the round trip for calls from now on. */
  setRoundTrip(ms: number): void;
  /**
   * Stores a file a person sent: `getFile` knows it by its file_id, and its
   * bytes are served at `/file/bot<token>/<file_path>`, as the Bot API does.
   * A `held` file's download sends its headers and first byte, then nothing
   * more until the caller goes away: a worker killed while reading it.
   */
  addFile(
    bytes: Uint8Array,
    name: string,
    options?: { held?: boolean },
  ): { file_id: string; file_unique_id: string; file_size: number };
  /** Every download of a stored file, by file_path, in order. */
  readonly fileDownloads: readonly string[];
  /** The default bot's flood control: its refusals and the calls that came during a wait; set with `limits`. */
  readonly flood: FloodLedger | undefined;
  close(): Promise<void>;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  let roundTrip = options.roundTripMs ?? 0;
  const calls: RecordedTelegramCall[] = [];
  const failures = new Map<string, BotApiError[]>();
  const queries = new Map<string, { answered: boolean }>();
  let nextQuery = 1;
  const files = new Map<string, HeldFile>();
  const fileDownloads: string[] = [];
  const heldPaths = new Set<string>();

  /** Each bot's own world: its chats as it sees them, the updates it has to take, its methods. */
  const worldOf = (bot: typeof FAKE_TELEGRAM.bot) => {
    const book = new ChatBook(bot);
    const queue = new UpdateQueue();
    // Telegram's flood limits are each bot's own: per bot, and per chat of that bot.
    const flood = options.limits ? new FloodLedger(options.limits) : undefined;
    return { bot, book, queue, methods: methodsOf(bot, book, queue), flood };
  };

  const methodsOf = (
    bot: typeof FAKE_TELEGRAM.bot,
    book: ChatBook,
    queue: UpdateQueue,
  ): Record<string, (p: Params, gone: AbortSignal) => unknown> => ({
    getMe: () => bot,
    getFile: (p) => {
      const file = files.get(String(p.file_id));
      if (!file) throw new BotApiError(400, "Bad Request: invalid file_id");
      return {
        file_id: p.file_id,
        file_unique_id: `u-${p.file_id}`,
        file_size: file.bytes.byteLength,
        file_path: file.path,
      };
    },
    getUpdates: (p, gone) => queue.poll(p, gone),
    setWebhook: (p) => {
      if (typeof p.url !== "string" || p.url === "") {
        queue.setWebhook(undefined, p.drop_pending_updates === true);
        return true;
      }
      queue.setWebhook(
        { url: p.url, ...(p.secret_token ? { secretToken: p.secret_token } : {}) },
        p.drop_pending_updates === true,
      );
      return true;
    },
    deleteWebhook: (p) => {
      queue.setWebhook(undefined, p.drop_pending_updates === true);
      return true;
    },
    getWebhookInfo: () => ({
      url: queue.webhook?.url ?? "",
      has_custom_certificate: false,
      pending_update_count: queue.pending.length,
    }),
    sendMessage: (p) => book.sendMessage(p),
    ...uploadMethods(book, files),
    editMessageText: (p) => book.editMessageText(p),
    sendMessageDraft: (p) => book.sendMessageDraft(p),
    deleteMessage: (p) => book.deleteMessage(p),
    sendChatAction: (p) => {
      if (!CHAT_ACTIONS.has(String(p.action))) {
        throw new BotApiError(400, "Bad Request: wrong parameter action in request");
      }
      book.checkThread(p.chat_id, p.message_thread_id);
      return true;
    },
    answerCallbackQuery: (p) => {
      const query = queries.get(String(p.callback_query_id));
      if (!query || query.answered) {
        throw new BotApiError(
          400,
          "Bad Request: query is too old and response timeout expired or query ID is invalid",
        );
      }
      query.answered = true;
      return true;
    },
    getChatMember: (p) => book.member(p),
    // The bot leaves; the call is what a test reads (callsTo("leaveChat")).
    leaveChat: () => true,
    getChat: (p) => book.getChat(p),
    setMyCommands: (p) => book.setCommands(p),
    getMyCommands: (p) => book.commandsOf(p.scope),
    deleteMyCommands: (p) => {
      book.commands.delete(p.scope?.chat_id ? `${p.scope.type}:${p.scope.chat_id}` : "default");
      return true;
    },
  });

  const worlds = new Map([
    [FAKE_TELEGRAM.token, worldOf(FAKE_TELEGRAM.bot)],
    ...(options.bots ?? []).map((b) => [b.token, worldOf(b.bot)] as const),
  ]);
  const main = worlds.get(FAKE_TELEGRAM.token) as ReturnType<typeof worldOf>;
  const { book, queue } = main;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://fake");
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download) return serveFile(res, download[1] ?? "", decodeURIComponent(download[2] ?? ""));
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match) return send(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    const [, token, method = ""] = match;
    const params = { ...Object.fromEntries(url.searchParams), ...(await readParams(req)) };
    const call: RecordedTelegramCall = { method, params, at: Date.now() };
    calls.push(call);
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    // The request travels to Telegram, which carries it out even if the caller dies meanwhile.
    const trip = roundTrip;
    const there = method === "getUpdates" ? 0 : Math.floor(trip / 2);
    if (there > 0) await sleep(there);
    const back = async () => {
      call.appliedAt = Date.now();
      if (trip - there > 0) await sleep(trip - there);
      if (gone.signal.aborted) call.clientGone = true;
    };
    try {
      const world = worlds.get(token ?? "");
      if (!world) throw new BotApiError(401, "Unauthorized");
      call.bot = world.bot.id;
      const failure = failures.get(method)?.shift();
      if (failure) throw failure;
      // A multipart upload carries the flag as the text "true".
      const paid = params.allow_paid_broadcast === true || params.allow_paid_broadcast === "true";
      world.flood?.check(method, params.chat_id, Date.now(), paid);
      const run = world.methods[method];
      if (!run) throw new BotApiError(404, "Not Found: method not found");
      const result = await run(params, gone.signal);
      await back();
      call.status = 200;
      call.answeredAt = Date.now();
      send(res, 200, { ok: true, result });
    } catch (error) {
      if (!(error instanceof BotApiError)) throw error;
      if (call.appliedAt === undefined) await back();
      call.status = error.code;
      call.answeredAt = Date.now();
      call.description = error.description;
      send(res, error.code, {
        ok: false,
        error_code: error.code,
        description: error.description,
        ...(error.parameters ? { parameters: error.parameters } : {}),
      });
    }
  };

  const serveFile = (res: ServerResponse, token: string, path: string): void => {
    if (!worlds.has(token)) {
      send(res, 401, { ok: false, error_code: 401 });
      return;
    }
    const file = [...files.values()].find((f) => f.path === path);
    if (!file) {
      send(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    fileDownloads.push(path);
    res.writeHead(200, { "content-length": file.bytes.byteLength });
    if (heldPaths.has(path)) res.write(file.bytes.subarray(0, 1));
    else res.end(file.bytes);
  };

  const server = await listenLocal(handle, {
    onError: (res, error) =>
      send(res, 500, { ok: false, error_code: 500, description: `fake failed: ${String(error)}` }),
  });

  return {
    apiRoot: server.url,
    token: FAKE_TELEGRAM.token,
    calls,
    get messages() {
      return book.messages;
    },
    get drafts() {
      return book.drafts;
    },
    deliveries: queue.deliveries,
    get pending() {
      return queue.pending;
    },
    get webhook() {
      return queue.webhook;
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    fileDownloads,
    flood: main.flood,
    addFile: (bytes, name, options) => {
      const id = `file-${files.size + 1}`;
      files.set(id, { bytes, path: `documents/${id}-${name}` });
      if (options?.held) heldPaths.add(`documents/${id}-${name}`);
      return { file_id: id, file_unique_id: `u-${id}`, file_size: bytes.byteLength };
    },
    addChat: (chat) => book.addChat(chat),
    createTopic: (chat, name, by) => book.createTopic(chat, name, by),
    userSends: (input) => queue.push({ message: book.userMessage(input) } as Update),
    sendUpdate: (update) => {
      const body = update as unknown as Record<string, { chat?: { id?: unknown }; id?: unknown }>;
      const message = body.message;
      if (typeof message?.chat?.id === "number" && book.chats.has(message.chat.id)) {
        book.store(message as unknown as StoredMessage);
      }
      const query = body.callback_query;
      if (typeof query?.id === "string") queries.set(query.id, { answered: false });
      return queue.inject(update);
    },
    pressButton: ({ from, message, data }) => {
      const id = String(nextQuery++);
      queries.set(id, { answered: false });
      return queue.push({
        callback_query: {
          id,
          from,
          message,
          chat_instance: String(message.chat.id),
          data,
        },
      } as Update);
    },
    redeliver: (update) => queue.redeliver(update),
    postToWebhook: (update, secret) => {
      const webhook = queue.webhook;
      if (!webhook) throw new Error("no webhook is set");
      return postUpdate(
        { url: webhook.url, ...(secret !== undefined ? { secretToken: secret } : {}) },
        update,
      );
    },
    botMessages: (chat, topic) =>
      book.messages.filter(
        (m) =>
          m.chat.id === chat &&
          m.from?.id === FAKE_TELEGRAM.bot.id &&
          (topic === undefined || m.message_thread_id === topic),
      ),
    commandsFor: (scope) => book.commandsOf(scope),
    failNext: (method, { code, description, retryAfter }) => {
      const list = failures.get(method) ?? [];
      list.push(
        new BotApiError(
          code,
          description,
          retryAfter !== undefined ? { retry_after: retryAfter } : undefined,
        ),
      );
      failures.set(method, list);
    },
    inFlight: () => calls.filter((c) => c.status === undefined && c.method !== "getUpdates"),
    account: (token) => {
      const world = worlds.get(token);
      if (!world || world === main)
        throw new Error(`the fake serves no other bot with token ${token}`);
      const own = () => calls.filter((c) => c.bot === world.bot.id);
      return {
        token,
        bot: world.bot,
        get calls() {
          return own();
        },
        get pending() {
          return world.queue.pending;
        },
        callsTo: (method) => own().filter((c) => c.method === method),
        addChat: (chat) => world.book.addChat(chat),
        userSends: (input) =>
          world.queue.push({ message: world.book.userMessage(input) } as Update),
        redeliver: (update) => world.queue.redeliver(update),
        botMessages: (chat) =>
          world.book.messages.filter((m) => m.chat.id === chat && m.from?.id === world.bot.id),
      };
    },
    setRoundTrip: (ms) => {
      roundTrip = ms;
    },
    close: () => {
      for (const world of worlds.values()) world.queue.close();
      return server.close();
    },
  };
}

async function readParams(req: IncomingMessage): Promise<Params> {
  const bytes = await readBytes(req);
  const contentType = req.headers["content-type"] ?? "";
  if (isMultipart(contentType)) return multipartParams(contentType, bytes);
  const raw = bytes.toString("utf8");
  if (raw === "") return {};
  if (contentType.includes("application/json")) {
    return JSON.parse(raw) as Params;
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
