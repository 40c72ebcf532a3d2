/**
 * A local Slack Web API that speaks the real wire protocol, so tests drive the
 * real `@slack/web-api` WebClient (and Bolt, which uses it). Every call is
 * recorded; the workspace behind it (slack-workspace.ts) keeps the messages the
 * bot posts, so `chat.update`, `conversations.replies` and friends answer as
 * Slack would. It also serves `response_url`s and private file downloads.
 *
 * Methods the fake does not implement answer `ok: true` with a warning, and a
 * token other than the bot token gets `invalid_auth`.
 *
 * @example
 * const fake = await startFakeSlackApi();
 * fake.users.set("U0ADMIN", { name: "ada", real_name: "Ada Lovelace", is_admin: true });
 * const client = new WebClient(FAKE_SLACK.botToken, {
 *   slackApiUrl: fake.url,
 *   retryConfig: { retries: 0 },
 * });
 * await client.chat.postMessage({ channel: "C1", text: "hi", thread_ts: "1700000000.000001" });
 * const post = await fake.waitForCall("chat.postMessage");
 * // post.args.thread_ts === "1700000000.000001"; fake.messages[0].text === "hi"
 * fake.rateLimit("chat.update", 1, 3); // the next chat.update answers 429, Retry-After: 3
 * await fake.close();
 */
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { requiredSlackScopes } from "../../platforms/slack/scopes.ts";
import { listenLocal, parseJson, pause, readBody } from "./local-server.ts";
import { SlackRateLimiter, type SlackRateLimits } from "./slack-limits.ts";
import { FakeSlackUploads, storedFile } from "./slack-uploads.ts";
import {
  FAKE_SLACK,
  type FakeAssistantThread,
  type FakeSlackChannel,
  type FakeSlackFile,
  type FakeSlackIdentity,
  type FakeSlackMessage,
  type FakeSlackReaction,
  type FakeSlackStream,
  type FakeSlackUser,
  FakeSlackWorkspace,
  type SlackArgs,
  type SlackResult,
} from "./slack-workspace.ts";

export {
  FAKE_SLACK,
  type FakeAssistantThread,
  type FakeSlackMessage,
  type FakeSlackStream,
  type FakeSlackUser,
  type SlackResult,
};

export interface RecordedCall {
  /** The Web API method, e.g. "chat.postMessage". */
  method: string;
  /**
   * The arguments, from a form or JSON body (and the query string). Form
   * values stay strings ("true", "3") as Slack receives them; `blocks`,
   * `attachments`, `metadata` and `prompts`, which the WebClient sends as
   * JSON strings, are parsed.
   */
  args: SlackArgs;
  /** From `Authorization: Bearer …`, else the `token` argument. */
  token: string | undefined;
  /** `Date.now()` when the call arrived. */
  at: number;
  contentType: string;
  /** Set once the fake has answered. */
  status?: number;
  response?: SlackResult;
  /** `Date.now()` when the fake carried the call out (with a round trip, half way through it). */
  appliedAt?: number;
  /** The caller was gone (its process killed) before the answer reached it: it never learned the outcome. */
  clientGone?: boolean;
  /** `Date.now()` when the fake answered. */
  answeredAt?: number;
}

/** A POST to a `response_url` the fake handed out (Bolt's `respond()`). */
export interface RecordedResponse {
  url: string;
  target: ResponseTarget;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields
  body: any;
  at: number;
}

/** What a `response_url` answers for: the channel, and the message an action came from. */
export interface ResponseTarget {
  channel?: string;
  messageTs?: string;
  threadTs?: string;
}

export interface ScriptedSlackReply {
  /** Defaults to 200. */
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  /** Waits this long before answering. */
  delayMs?: number;
}

/**
 * Answers a method (after the token check) with the whole response body, e.g.
 * `{ ok: false, error: "channel_not_found" }`; `undefined` falls through to the
 * workspace.
 */
export type MethodHandler = (
  call: RecordedCall,
) => SlackResult | undefined | Promise<SlackResult | undefined>;

export interface FakeSlackApiOptions extends Partial<FakeSlackIdentity> {
  /** The seconds part of the first message timestamp. Defaults to 1700000000. */
  startTs?: number;
  users?: Record<string, FakeSlackUser>;
  /**
   * A platform round trip per Web API call, in ms (default 0). Slack carries
   * the call out half way through it and answers at the end, as over a real
   * network: a caller killed in the second half never hears that its message
   * was posted. Chaos tests kill workers inside this window.
   */
  roundTripMs?: number;
  /**
   * The bot token's scopes, sent as Slack does in the `x-oauth-scopes` header
   * of every answer to that token. Defaults to every scope the channel needs.
   */
  scopes?: readonly string[];
  /**
   * More apps installed in the workspace (several bot accounts in one
   * deployment): each one's bot token is accepted, and `auth.test` with it
   * names that app's bot. Every call records the token it came with.
   */
  apps?: readonly FakeSlackApp[];
  /**
   * Slack's rate limits (slack-limits.ts; `SLACK_RATE_LIMITS` for the
   * published tiers): calls past them answer 429 with `Retry-After`. Off by default.
   */
  rateLimits?: SlackRateLimits;
}

/** Another app of the fake workspace: its bot token and who its bot is. */
export interface FakeSlackApp {
  readonly botToken: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
}

export interface WaitForCallOptions {
  where?: (call: RecordedCall) => boolean;
  /** Resolve with the n-th matching call (1-based). Defaults to 1. */
  count?: number;
  /** Defaults to 5000. */
  timeoutMs?: number;
}

export interface FakeSlackApi {
  /** The Web API base for the WebClient's `slackApiUrl`, e.g. `http://127.0.0.1:54321/api/`. */
  url: string;
  /** `http://127.0.0.1:PORT`, where response URLs and file downloads live. */
  origin: string;
  identity: FakeSlackIdentity;
  /** Every Web API call in arrival order, including refused and rate-limited ones. */
  calls: RecordedCall[];
  /** The rate limiter's refusals and the calls made during a wait; set with `rateLimits`. */
  rateLimiter: SlackRateLimiter | undefined;
  /** Users for users.info, by id. The bot user answers without being set. */
  users: Map<string, FakeSlackUser>;
  /** Messages the bot posted (and any added with `addMessage`), updated in place by edits. */
  messages: FakeSlackMessage[];
  /** Streams the bot started (chat.startStream); the streamed messages are in `messages`. */
  streams: FakeSlackStream[];
  reactions: FakeSlackReaction[];
  files: Map<string, FakeSlackFile>;
  /** Channels with members, for conversations.info/members and users.conversations; by id. */
  channels: Map<string, FakeSlackChannel>;
  /** POSTs to response URLs, in arrival order. */
  responses: RecordedResponse[];
  /** Assistant pane threads, by `channel:thread_ts`, with the title, prompts and status the bot set. */
  assistantThreads: Map<string, FakeAssistantThread>;
  /**
   * Opens a thread of the assistant pane in `user`'s DM with the bot (`channel`, a D… id), as
   * Slack does before it sends `assistant_thread_started` (slack-requests.ts `assistantThreadEvent`).
   */
  openAssistantThread(user: string, channel: string): FakeAssistantThread;
  callsTo(method: string): RecordedCall[];
  /** Resolves once a matching call is answered; on timeout, rejects naming the calls seen. */
  waitForCall(method: string, options?: WaitForCallOptions): Promise<RecordedCall>;
  /** The next `times` calls of `method` answer HTTP 429 with `Retry-After: retryAfterSec`. */
  rateLimit(method: string, times?: number, retryAfterSec?: number): void;
  /** The next `times` calls of `method` answer `{ ok: false, error }`. */
  failNext(method: string, error: string, times?: number): void;
  /** Queues raw replies for `method`; each call consumes one before anything else answers. */
  script(method: string, ...replies: ScriptedSlackReply[]): void;
  setMethod(method: string, handler: MethodHandler): void;
  /** Stores a message someone else wrote, e.g. the parent of a thread; returns it. */
  addMessage(message: {
    channel: string;
    user: string;
    text: string;
    ts?: string;
    thread_ts?: string;
  }): FakeSlackMessage;
  /** Stores a file for files.info whose `url_private_download` serves `content`. */
  addFile(file: {
    id?: string;
    name: string;
    mimetype?: string;
    content: string | Buffer;
    user?: string;
  }): FakeSlackFile;
  /** A fresh `response_url` on this fake for a slash command or block action. */
  responseUrl(target?: ResponseTarget): string;
  /** Every authorized download of a stored file, by file id, in order. */
  readonly fileDownloads: readonly string[];
  /** Web API calls that arrived and are not answered yet (held by the round trip). */
  inFlight(): RecordedCall[];
  /** Changes the round trip for calls from now on. */
  setRoundTrip(ms: number): void;
  close(): Promise<void>;
}

/** Arguments the WebClient JSON-encodes inside a form body. */
const JSON_ARGS = ["blocks", "attachments", "metadata", "prompts", "chunks"];

export async function startFakeSlackApi(options: FakeSlackApiOptions = {}): Promise<FakeSlackApi> {
  const {
    startTs = 1_700_000_000,
    users = {},
    roundTripMs = 0,
    scopes = requiredSlackScopes(),
    apps = [],
    rateLimits,
    ...overrides
  } = options;
  const limiter = rateLimits ? new SlackRateLimiter(rateLimits) : undefined;
  let roundTrip = roundTripMs;
  const identity: FakeSlackIdentity = { ...FAKE_SLACK, ...overrides };
  const workspace = new FakeSlackWorkspace(identity, startTs);
  const uploads = new FakeSlackUploads(workspace, () => origin);
  for (const [id, user] of Object.entries(users)) workspace.users.set(id, user);

  const calls: RecordedCall[] = [];
  const responses: RecordedResponse[] = [];
  const scripts = new Map<string, ScriptedSlackReply[]>();
  const handlers = new Map<string, MethodHandler>();
  const responseTargets = new Map<string, ResponseTarget>();
  const answered = new EventEmitter();
  const closing = new AbortController();
  let origin = "";

  const answerMethod = async (method: string, req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const contentType = String(req.headers["content-type"] ?? "");
    const query = new URL(req.url ?? "/", "http://fake").searchParams;
    const args = { ...Object.fromEntries(query), ...parseArgs(raw, contentType) };
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const call: RecordedCall = {
      method,
      args,
      token: bearer ?? (typeof args.token === "string" ? args.token : undefined),
      at: Date.now(),
      contentType,
    };
    calls.push(call);
    let gone = false;
    res.on("close", () => {
      gone ||= !res.writableEnded;
    });

    // The request travels to Slack, which carries it out even if the caller dies meanwhile.
    const trip = roundTrip;
    if (!(await pause(Math.floor(trip / 2), closing.signal))) return;
    const reply = await replyTo(call);
    call.appliedAt = Date.now();
    if (!(await pause(reply.delayMs, closing.signal))) return;
    if (!(await pause(trip - Math.floor(trip / 2), closing.signal))) return;
    if (call.token === identity.botToken || apps.some((a) => a.botToken === call.token)) {
      res.setHeader("x-oauth-scopes", scopes.join(","));
    }
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (gone || res.destroyed) call.clientGone = true;
    else sendJson(res, reply.status ?? 200, reply.body);
    call.status = reply.status ?? 200;
    call.answeredAt = Date.now();
    call.response = reply.body as SlackResult;
    answered.emit("call", call);
  };

  const replyTo = async (call: RecordedCall): Promise<ScriptedSlackReply> => {
    const scripted = scripts.get(call.method)?.shift();
    if (scripted) return scripted;
    if (call.token === undefined) return { body: { ok: false, error: "not_authed" } };
    const app = apps.find((a) => a.botToken === call.token);
    if (call.token !== identity.botToken && !app) {
      return { body: { ok: false, error: "invalid_auth" } };
    }
    if (app && call.method === "auth.test") {
      const auth = workspace.call(call.method, call.args);
      return { body: { ...auth, user_id: app.botUserId, bot_id: app.botId } };
    }
    const retryAfter = limiter?.check(call.method, call.args) ?? 0;
    if (retryAfter > 0) {
      return {
        status: 429,
        headers: { "retry-after": String(retryAfter) },
        body: { ok: false, error: "ratelimited" },
      };
    }
    const custom = await handlers.get(call.method)?.(call);
    if (custom) return { body: custom };
    const body = uploads.call(call.method, call.args) ??
      workspace.call(call.method, call.args) ?? {
        ok: true,
        warning: "method_not_implemented_by_fake",
        response_metadata: { warnings: [`method_not_implemented_by_fake: ${call.method}`] },
      };
    return { body };
  };

  const answerResponseUrl = async (id: string, req: IncomingMessage, res: ServerResponse) => {
    const target = responseTargets.get(id);
    const body = parseJson(await readBody(req));
    if (!target) return sendJson(res, 404, { ok: false, error: "expired_url" });
    if (body === undefined) return sendJson(res, 400, { ok: false, error: "invalid_payload" });
    responses.push({ url: `${origin}/response/${id}`, target, body, at: Date.now() });
    applyResponse(workspace, target, body as SlackArgs);
    sendJson(res, 200, { ok: true });
  };

  const fileDownloads: string[] = [];
  const answerDownload = (fileId: string, req: IncomingMessage, res: ServerResponse) => {
    const file = workspace.files.get(fileId);
    if (req.headers.authorization !== `Bearer ${identity.botToken}`) {
      // Slack answers an unauthenticated download with its sign-in page and a
      // 200, not a 401: a client that forgets the token "succeeds" with HTML.
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return void res.end("<!DOCTYPE html><html><title>Sign in | Slack</title></html>");
    }
    if (!file) return void res.writeHead(404).end();
    fileDownloads.push(fileId);
    res.writeHead(200, { "content-type": file.mimetype, "content-length": file.content.length });
    res.end(file.content);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const method = /^\/api\/([\w.]+)$/.exec(path)?.[1];
    if (method && (req.method === "POST" || req.method === "GET")) {
      return answerMethod(method, req, res);
    }
    const response = /^\/response\/(\w+)$/.exec(path)?.[1];
    if (response && req.method === "POST") return answerResponseUrl(response, req, res);
    const upload = /^\/upload\/v1\/(\w+)$/.exec(path)?.[1];
    if (upload && req.method === "POST") return uploads.receive(upload, req, res);
    const download = /^\/files-pri\/[^-/]+-([^/]+)\/download\//.exec(path)?.[1];
    if (download && req.method === "GET") return answerDownload(download, req, res);
    sendJson(res, 404, { ok: false, error: "unknown_method", req_method: req.method, path });
  };

  const server = await listenLocal(handle, {
    onError: (res, error) =>
      sendJson(res, 500, { ok: false, error: "fake_slack_failed", detail: String(error) }),
  });
  origin = server.url;

  const queue = (method: string, replies: ScriptedSlackReply[]) => {
    scripts.set(method, [...(scripts.get(method) ?? []), ...replies]);
  };

  return {
    url: `${origin}/api/`,
    origin,
    identity,
    calls,
    rateLimiter: limiter,
    users: workspace.users,
    messages: workspace.messages,
    streams: workspace.streams,
    reactions: workspace.reactions,
    files: workspace.files,
    channels: workspace.channels,
    responses,
    assistantThreads: workspace.assistantThreads,
    openAssistantThread: (user, channel) => workspace.openAssistantThread(user, channel),
    callsTo: (method) => calls.filter((call) => call.method === method),
    waitForCall: (method, waitOptions = {}) => waitForCall(calls, answered, method, waitOptions),
    rateLimit: (method, times = 1, retryAfterSec = 1) => {
      const reply = {
        status: 429,
        headers: { "retry-after": String(retryAfterSec) },
        body: { ok: false, error: "ratelimited" },
      };
      queue(
        method,
        Array.from({ length: times }, () => reply),
      );
    },
    failNext: (method, error, times = 1) => {
      queue(
        method,
        Array.from({ length: times }, () => ({ body: { ok: false, error } })),
      );
    },
    script: (method, ...replies) => queue(method, replies),
    setMethod: (method, handler) => void handlers.set(method, handler),
    addMessage: (message) => {
      const stored: FakeSlackMessage = {
        type: "message",
        team: identity.teamId,
        ts: message.ts ?? workspace.nextTs(),
        ...message,
      };
      workspace.messages.push(stored);
      return stored;
    },
    addFile: (file) => {
      const stored = storedFile(identity, origin, { ...file, content: Buffer.from(file.content) });
      if (!file.mimetype) stored.mimetype = "text/plain";
      workspace.files.set(stored.id, stored);
      return stored;
    },
    fileDownloads,
    responseUrl: (target = {}) => {
      const id = randomBytes(8).toString("hex");
      responseTargets.set(id, target);
      return `${origin}/response/${id}`;
    },
    inFlight: () => calls.filter((call) => call.status === undefined),
    setRoundTrip: (ms) => {
      roundTrip = ms;
    },
    close: () => {
      closing.abort();
      answered.removeAllListeners();
      return server.close();
    },
  };
}

/**
 * What Slack does with a `response_url` POST: replace or delete the message
 * the action came from, post in the channel, or (by default) show an
 * ephemeral message, which only the recording keeps.
 */
function applyResponse(workspace: FakeSlackWorkspace, target: ResponseTarget, body: SlackArgs) {
  const original =
    target.channel && target.messageTs
      ? workspace.find(target.channel, target.messageTs)
      : undefined;
  if (isTrue(body.delete_original)) {
    if (original) workspace.messages.splice(workspace.messages.indexOf(original), 1);
    return;
  }
  if (isTrue(body.replace_original) && original) {
    if (body.text !== undefined) original.text = String(body.text);
    if (Array.isArray(body.blocks)) original.blocks = body.blocks;
    original.edited = { user: workspace.identity.botUserId, ts: workspace.nextTs() };
    return;
  }
  if (body.response_type === "in_channel" && target.channel) {
    workspace.call("chat.postMessage", {
      ...body,
      channel: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
    });
  }
}

function waitForCall(
  calls: RecordedCall[],
  answered: EventEmitter,
  method: string,
  { where = () => true, count = 1, timeoutMs = 5_000 }: WaitForCallOptions,
): Promise<RecordedCall> {
  const nth = () =>
    calls.filter((c) => c.method === method && c.status !== undefined && where(c))[count - 1];
  const found = nth();
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const onCall = () => {
      const call = nth();
      if (!call) return;
      cleanup();
      resolve(call);
    };
    const timer = setTimeout(() => {
      cleanup();
      const seen = calls.map((c) => c.method).join(", ") || "none";
      reject(new Error(`No ${method} call #${count} within ${timeoutMs}ms; calls so far: ${seen}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      answered.off("call", onCall);
    };
    answered.on("call", onCall);
  });
}

function parseArgs(raw: string, contentType: string): SlackArgs {
  if (contentType.startsWith("application/json")) {
    const parsed = parseJson(raw);
    return typeof parsed === "object" && parsed !== null ? (parsed as SlackArgs) : {};
  }
  if (!contentType.startsWith("application/x-www-form-urlencoded")) return {};
  const args: SlackArgs = Object.fromEntries(new URLSearchParams(raw));
  for (const key of JSON_ARGS) {
    if (typeof args[key] === "string") args[key] = parseJson(args[key]) ?? args[key];
  }
  return args;
}

const isTrue = (value: unknown): boolean => value === true || value === "true";

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.end(JSON.stringify(body));
}
