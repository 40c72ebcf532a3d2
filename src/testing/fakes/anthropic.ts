/**
 * A local Anthropic Messages API server, written from the published API
 * reference and typed against the SDK's own types, so tests drive the real
 * `@anthropic-ai/sdk` (and the provider on it) over the real wire protocol:
 *
 * - `POST /v1/messages` (the key in `x-api-key` or `Authorization: Bearer`) with `stream: true` answers server-sent events in the
 *   documented order: `message_start`, then per content block
 *   `content_block_start`, `content_block_delta` (`text_delta`,
 *   `input_json_delta`) and `content_block_stop`, then `message_delta` (stop
 *   reason, usage) and `message_stop`, with a `ping` after the start; a
 *   reply can hang before its headers (`delayMs: Infinity`) or stall after
 *   some events, silent or with pings (`stallAfterEvents`, `pingEveryMs`);
 * - errors in Anthropic's shape, `{ type: "error", error: { type, message },
 *   request_id }`, with the documented status of each type; `overloaded: true`
 *   answers 529 `overloaded_error`, `errorEvent` sends an `error` event in an
 *   otherwise healthy stream;
 * - the request checks the API makes: `max_tokens` required, roles alternate
 *   starting with a user turn, no empty text blocks, every `tool_use` answered
 *   by a `tool_result` at the start of the next user turn, at most four
 *   `cache_control` breakpoints;
 * - extended thinking, when the request turns it on: `thinking` streams a signed `thinking` block (and
 *   `redactedThinking` a `redacted_thinking` block) before the reply; a
 *   follow-up request in that tool loop is refused with the API's 400 unless
 *   its assistant turn starts with those blocks exactly as they were sent;
 * - a prefix-cache simulator (see {@link PromptCache}): prefixes are cached
 *   only at `cache_control` breakpoints and only from a minimum length, a read
 *   finds the longest cached prefix ending at a breakpoint or up to 20 blocks
 *   before one, and the usage says `cache_creation_input_tokens`,
 *   `cache_read_input_tokens` and `input_tokens` (the rest) accordingly.
 *
 * @example
 * const fake = await startFakeAnthropic({ apiKey: "sk-ant-test", minCacheTokens: 100 });
 * fake.script({ toolUses: [{ name: "get_weather", input: { city: "Paris" } }] }, { content: "Sunny." });
 * const provider = createAnthropicProvider({ apiKey: "sk-ant-test", baseURL: fake.url, model: "claude-test" });
 */
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type Anthropic from "@anthropic-ai/sdk";
import { listenLocal, parseJson, pause, readBody } from "./local-server.ts";
import { ScriptedReplies } from "./scripted-replies.ts";

export interface ScriptedToolUse {
  id?: string;
  name: string;
  input: unknown;
}

export interface ScriptedMessage {
  content?: string;
  toolUses?: ScriptedToolUse[];
  stopReason?: Anthropic.StopReason;
  /** An error reply with this status, in Anthropic's shape (type by status unless `errorType`). */
  status?: number;
  errorType?: string;
  errorMessage?: string;
  /** Shorthand for status 529 `overloaded_error`. */
  overloaded?: boolean;
  /** An `error` event of this type in place of `message_delta` (a stream that fails mid-way, after any content). */
  errorEvent?: string;
  headers?: Record<string, string>;
  /** Waits this long before answering; `Infinity`: never sends headers (a server that took the request and hangs). */
  delayMs?: number;
  /** Streams this many events (the `ping` after `message_start` not counted), then nothing more, holding the connection open: a stalled model. */
  stallAfterEvents?: number;
  /** While stalled, sends a `ping` event this often: a live server whose model is stuck. */
  pingEveryMs?: number;
  /** A `thinking` block with this text (and a signature) before the reply. */
  thinking?: string;
  /** A `redacted_thinking` block with this opaque data, after any thinking block. */
  redactedThinking?: string;
  /** Characters per text delta; default one word per delta. */
  textChunkChars?: number;
  /** Waits this long between events, each then its own network chunk (the benchmark's model). */
  chunkDelayMs?: number;
}

export interface RecordedMessagesRequest {
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields
  body: any;
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  /** What the cache simulator said for this request (unset for refused requests). */
  usage?: CacheUsage;
}

export type MessagesResponder = (
  request: RecordedMessagesRequest,
) => ScriptedMessage | Promise<ScriptedMessage>;

export interface FakeAnthropicOptions {
  /** When set, requests must carry it (`x-api-key` or a bearer token) or get a 401. */
  apiKey?: string;
  responder?: MessagesResponder;
  /** Anthropic's minimum cacheable prompt: 1024 tokens for most models; tests lower it. */
  minCacheTokens?: number;
  /** The clock cache entries expire by. */
  now?: () => number;
}

export interface FakeAnthropic {
  /** The base URL to hand the SDK (it adds `/v1/messages`). */
  url: string;
  requests: RecordedMessagesRequest[];
  cache: PromptCache;
  script(...replies: (ScriptedMessage | MessagesResponder)[]): void;
  setResponder(responder: MessagesResponder): void;
  close(): Promise<void>;
}

/** Answers "echo: <the last user text>". */
export const echoMessages: MessagesResponder = (request) => {
  const messages: { role: string; content: unknown }[] = request.body?.messages ?? [];
  const last = messages.findLast((m) => m.role === "user");
  const blocks = Array.isArray(last?.content)
    ? last.content
    : [{ type: "text", text: last?.content }];
  const text = blocks
    .filter((b: { type?: string }) => b.type === "text")
    .map((b: { text?: string }) => b.text ?? "")
    .join(" ");
  return { content: `echo: ${text}` };
};

/** The documented error type of each status. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

export async function startFakeAnthropic(
  options: FakeAnthropicOptions = {},
): Promise<FakeAnthropic> {
  const requests: RecordedMessagesRequest[] = [];
  const replies = new ScriptedReplies<RecordedMessagesRequest, ScriptedMessage>(
    options.responder ?? echoMessages,
  );
  const cache = new PromptCache(options.minCacheTokens ?? 1024, options.now ?? Date.now);
  /** The reasoning blocks sent with each tool_use id, which its follow-up must send back. */
  const thinkingOf = new Map<string, unknown[]>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "POST" || path !== "/v1/messages") {
      return sendError(res, 404, "not_found_error", `Not found: ${req.method} ${path}`);
    }
    const rawBody = await readBody(req);
    const recorded: RecordedMessagesRequest = {
      body: parseJson(rawBody),
      rawBody,
      headers: req.headers,
    };
    requests.push(recorded);
    // The API takes the key as `x-api-key`; recent SDKs send it as a bearer token.
    const key = req.headers["x-api-key"] ?? req.headers.authorization?.replace(/^Bearer /, "");
    if (options.apiKey !== undefined && key !== options.apiKey) {
      return sendError(res, 401, "authentication_error", "invalid x-api-key");
    }
    if (typeof req.headers["anthropic-version"] !== "string") {
      return sendError(res, 400, "invalid_request_error", "anthropic-version: header is required");
    }
    const problem =
      recorded.body === undefined
        ? "The request body is not valid JSON."
        : (checkRequest(recorded.body) ?? checkThinking(recorded.body, thinkingOf));
    if (problem) return sendError(res, 400, "invalid_request_error", problem);

    const reply = await replies.next(recorded);
    const signal = replies.signalFor(res);
    if (!(await pause(reply.delayMs, signal))) return;
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.overloaded) return sendError(res, 529, "overloaded_error", "Overloaded");
    if (reply.status !== undefined && reply.status >= 400) {
      const type = reply.errorType ?? ERROR_TYPES[reply.status] ?? "api_error";
      return sendError(res, reply.status, type, reply.errorMessage ?? `scripted ${type}`);
    }
    recorded.usage = cache.use(recorded.body);
    if (recorded.body.stream !== true) {
      return sendError(
        res,
        400,
        "invalid_request_error",
        "this fake only streams: set stream: true",
      );
    }
    const events = eventsOf(reply, recorded);
    if (events !== "error") rememberThinking(events, thinkingOf);
    return streamMessage(res, events, signal, reply);
  };

  const server = await listenLocal(handle, {
    onError: (res, error) => sendError(res, 500, "api_error", `The fake failed: ${String(error)}`),
  });
  return {
    url: server.url,
    requests,
    cache,
    script: replies.script,
    setResponder: replies.setResponder,
    close: () => replies.close(() => server.close()),
  };
}

/** The checks the API makes on a request before it runs; a problem is a 400. */
export function checkRequest(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== "string") return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return "messages: at least one message is required";
  const thinking = body.thinking as { type?: string; budget_tokens?: number } | undefined;
  if (thinking?.type === "enabled") {
    const budget = thinking.budget_tokens ?? 0;
    if (budget < 1024)
      return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    if (budget >= body.max_tokens)
      return "`max_tokens` must be greater than `thinking.budget_tokens`.";
    if (body.temperature !== undefined && body.temperature !== 1)
      return "`temperature` may only be set to 1 when thinking is enabled.";
  }
  let breakpoints = 0;
  const count = (block: unknown) => {
    if ((block as { cache_control?: unknown })?.cache_control) breakpoints++;
  };
  for (const tool of (body.tools as unknown[]) ?? []) count(tool);
  for (const block of Array.isArray(body.system) ? body.system : []) count(block);
  let pending: string[] = [];
  for (const [i, message] of (messages as { role: string; content: unknown }[]).entries()) {
    const expected = i % 2 === 0 ? "user" : "assistant";
    if (message.role !== expected) {
      return `messages.${i}.role: roles must alternate between "user" and "assistant", starting with "user"`;
    }
    const blocks =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : message.content;
    if (!Array.isArray(blocks) || blocks.length === 0)
      return `messages.${i}: content must not be empty`;
    for (const [j, block] of (
      blocks as { type: string; text?: string; id?: string; tool_use_id?: string }[]
    ).entries()) {
      count(block);
      if (block.type === "text" && !block.text)
        return `messages.${i}.content.${j}.text: text content blocks must be non-empty`;
    }
    const typed = blocks as { type: string; id?: string; tool_use_id?: string }[];
    if (message.role === "user") {
      const results = typed.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
      const leading = typed.slice(0, results.length).every((b) => b.type === "tool_result");
      if (pending.length > 0 && (!leading || pending.some((id) => !results.includes(id)))) {
        return `messages.${i}: tool_use ids were found without tool_result blocks immediately after: ${pending.join(", ")}. Each tool_use block must have a corresponding tool_result block in the next message.`;
      }
      pending = [];
    } else {
      pending = typed.filter((b) => b.type === "tool_use").map((b) => b.id ?? "");
    }
  }
  if (pending.length > 0)
    return `messages: the last assistant turn has tool_use blocks without results: ${pending.join(", ")}`;
  if (breakpoints > 4)
    return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  return undefined;
}

/**
 * As the API does with thinking on: the last assistant turn of a tool loop
 * (the one the closing tool results answer) must start with the reasoning
 * blocks that came with its tool calls, unchanged, signature included.
 */
function checkThinking(
  body: Record<string, unknown>,
  thinkingOf: ReadonlyMap<string, unknown[]>,
): string | undefined {
  const messages = body.messages as { role: string; content: unknown }[];
  const at = messages.length - 2;
  const assistant = messages[at];
  if (assistant?.role !== "assistant" || !Array.isArray(assistant.content)) return undefined;
  const blocks = assistant.content as { type: string; id?: string }[];
  const call = blocks.find((b) => b.type === "tool_use");
  const expected = call?.id ? thinkingOf.get(call.id) : undefined;
  if (!expected) return undefined;
  const sent = blocks.slice(0, expected.length);
  if (sent[0]?.type !== "thinking" && sent[0]?.type !== "redacted_thinking") {
    return `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${sent[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns.`;
  }
  for (const [j, block] of expected.entries()) {
    if (JSON.stringify(sortKeys(sent[j])) !== JSON.stringify(sortKeys(block))) {
      return `messages.${at}.content.${j}: Invalid \`signature\` in \`${(block as { type: string }).type}\` block`;
    }
  }
  return undefined;
}

function rememberThinking(
  events: readonly Anthropic.RawMessageStreamEvent[],
  thinkingOf: Map<string, unknown[]>,
): void {
  const reasoning: Record<string, unknown>[] = [];
  for (const event of events) {
    if (event.type === "content_block_start") {
      const block = event.content_block;
      if (block.type === "thinking" || block.type === "redacted_thinking")
        reasoning.push({ ...block });
      if (block.type === "tool_use" && reasoning.length > 0) thinkingOf.set(block.id, reasoning);
    }
    if (event.type === "content_block_delta") {
      const block = reasoning[event.index];
      if (block && event.delta.type === "thinking_delta") block.thinking += event.delta.thinking;
      if (block && event.delta.type === "signature_delta") block.signature = event.delta.signature;
    }
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/** The fake's signature over a thinking text: opaque, and different for any other text. */
export function thinkingSignature(thinking: string): string {
  return createHash("sha256").update(`fake-anthropic:${thinking}`).digest("base64");
}

export interface CacheUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  /** Block positions (in prefix order: tools, system, messages) that carried a breakpoint. */
  readonly breakpoints: readonly number[];
}

/** How far before a breakpoint a read looks for an earlier cached prefix, as Anthropic documents. */
const LOOKBACK_BLOCKS = 20;

/**
 * Anthropic's prompt cache as documented: the prompt is a sequence of blocks
 * (tools, then system, then messages); `cache_control` on a block writes the
 * prefix ending there, when it is at least the minimum cacheable length; a
 * request reads the longest prefix that was written before and ends at one of
 * its breakpoints or up to 20 blocks before one. `cache_control` itself is
 * not part of what is compared, and the cache is per model. Tokens are
 * counted as a quarter of a block's JSON characters.
 */
export class PromptCache {
  readonly #entries = new Map<string, { tokens: number; expiresAt: number }>();

  constructor(
    readonly minTokens: number,
    private readonly now: () => number,
  ) {}

  use(body: Record<string, unknown>): CacheUsage {
    const blocks = blocksOf(body);
    const hashes: string[] = [];
    const totals: number[] = [];
    const hash = createHash("sha256").update(String(body.model));
    let total = 0;
    for (const block of blocks) {
      hash.update(block.key);
      hashes.push(hash.copy().digest("hex"));
      total += block.tokens;
      totals.push(total);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.ttlMs === undefined ? [] : [i]));
    const now = this.now();
    let read = -1;
    for (const at of breakpoints) {
      for (let i = at; i >= Math.max(0, at - LOOKBACK_BLOCKS); i--) {
        const entry = this.#entries.get(hashes[i] ?? "");
        if (entry && entry.expiresAt > now && i > read) read = i;
      }
    }
    const readTokens = read >= 0 ? (totals[read] ?? 0) : 0;
    let written = readTokens;
    for (const at of breakpoints) {
      const tokens = totals[at] ?? 0;
      const ttlMs = blocks[at]?.ttlMs ?? 0;
      if (tokens < this.minTokens) continue;
      const key = hashes[at] ?? "";
      const entry = this.#entries.get(key);
      this.#entries.set(key, { tokens, expiresAt: now + ttlMs });
      if (at > read && !(entry && entry.expiresAt > now)) written = Math.max(written, tokens);
    }
    // A read refreshes the entry it read.
    if (read >= 0) {
      const entry = this.#entries.get(hashes[read] ?? "");
      if (entry) entry.expiresAt = Math.max(entry.expiresAt, now + 5 * 60_000);
    }
    return {
      input_tokens: total - written,
      cache_creation_input_tokens: written - readTokens,
      cache_read_input_tokens: readTokens,
      breakpoints,
    };
  }

  clear(): void {
    this.#entries.clear();
  }
}

interface PromptBlock {
  readonly key: string;
  readonly tokens: number;
  readonly ttlMs?: number;
}

function blocksOf(body: Record<string, unknown>): PromptBlock[] {
  const out: PromptBlock[] = [];
  const add = (where: string, block: unknown) => {
    const { cache_control: control, ...rest } = (block ?? {}) as Record<string, unknown> & {
      cache_control?: { ttl?: string };
    };
    const key = `${where}:${JSON.stringify(rest)}`;
    const ttlMs = control ? (control.ttl === "1h" ? 3_600_000 : 300_000) : undefined;
    out.push({ key, tokens: Math.ceil(key.length / 4), ...(ttlMs === undefined ? {} : { ttlMs }) });
  };
  for (const tool of (body.tools as unknown[]) ?? []) add("tool", tool);
  const system = body.system;
  if (typeof system === "string") add("system", { type: "text", text: system });
  else for (const block of (system as unknown[]) ?? []) add("system", block);
  for (const [i, message] of (
    (body.messages as { role: string; content: unknown }[]) ?? []
  ).entries()) {
    const blocks =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : message.content;
    for (const block of (blocks as unknown[]) ?? []) add(`${i}:${message.role}`, block);
  }
  return out;
}

function eventsOf(
  reply: ScriptedMessage,
  request: RecordedMessagesRequest,
): Anthropic.RawMessageStreamEvent[] | "error" {
  const usage = request.usage ?? {
    input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const message: Anthropic.Message = {
    id: `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "message",
    role: "assistant",
    model: String(request.body.model),
    content: [],
    stop_reason: null,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      cache_creation: null,
      inference_geo: null,
      output_tokens: 1,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: "standard",
      speed: null,
    },
  };
  const events: Anthropic.RawMessageStreamEvent[] = [{ type: "message_start", message }];
  let index = 0;
  let outputChars = 0;
  // As the API: no thinking blocks unless the request turned thinking on.
  const thinks = request.body.thinking?.type === "enabled";
  if (thinks && reply.thinking !== undefined) {
    events.push({
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    for (const piece of reply.thinking.match(/\S+\s*|\s+/g) ?? []) {
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking: piece },
      });
    }
    events.push({
      type: "content_block_delta",
      index,
      delta: { type: "signature_delta", signature: thinkingSignature(reply.thinking) },
    });
    events.push({ type: "content_block_stop", index });
    outputChars += reply.thinking.length;
    index++;
  }
  if (thinks && reply.redactedThinking !== undefined) {
    events.push({
      type: "content_block_start",
      index,
      content_block: { type: "redacted_thinking", data: reply.redactedThinking },
    });
    events.push({ type: "content_block_stop", index });
    index++;
  }
  if (reply.content) {
    const text = reply.content;
    events.push({
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "", citations: null },
    });
    const pieces = reply.textChunkChars
      ? (text.match(new RegExp(`[\\s\\S]{1,${reply.textChunkChars}}`, "g")) ?? [])
      : (text.match(/\S+\s*|\s+/g) ?? []);
    for (const piece of pieces) {
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: piece },
      });
    }
    events.push({ type: "content_block_stop", index });
    outputChars += text.length;
    index++;
  }
  for (const use of reply.toolUses ?? []) {
    const id = use.id ?? `toolu_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    events.push({
      type: "content_block_start",
      index,
      content_block: {
        type: "tool_use",
        id,
        name: use.name,
        input: {},
        caller: { type: "direct" },
      },
    });
    const json = JSON.stringify(use.input ?? {});
    for (let at = 0; at < json.length; at += 8) {
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: json.slice(at, at + 8) },
      });
    }
    events.push({ type: "content_block_stop", index });
    outputChars += json.length;
    index++;
  }
  const stop: Anthropic.StopReason =
    reply.stopReason ?? ((reply.toolUses?.length ?? 0) > 0 ? "tool_use" : "end_turn");
  events.push({
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null, container: null, stop_details: null },
    usage: {
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
      output_tokens_details: null,
      server_tool_use: null,
    },
  });
  events.push({ type: "message_stop" });
  if (reply.errorEvent) {
    // What came before the end arrives, then the failure: a stream that breaks mid-way.
    const cut = events.findIndex((e) => e.type === "message_delta");
    return [
      ...events.slice(0, cut),
      {
        type: "error",
        error: { type: reply.errorEvent },
      } as unknown as Anthropic.RawMessageStreamEvent,
    ];
  }
  return events;
}

async function streamMessage(
  res: ServerResponse,
  events: Anthropic.RawMessageStreamEvent[] | "error",
  signal: AbortSignal,
  reply: ScriptedMessage,
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": `req_${randomUUID().slice(0, 8)}`,
  });
  if (events === "error") return void res.end();
  for (const [i, event] of events.entries()) {
    if (signal.aborted) return;
    if (i === reply.stallAfterEvents) return stall(res, reply.pingEveryMs, signal);
    if ((event as { type: string }).type === "error") {
      const body = {
        type: "error",
        error: {
          type: (event as never as { error: { type: string } }).error.type,
          message: "Overloaded",
        },
      };
      res.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
      return void res.end();
    }
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    if (i === 0) res.write(PING);
    if (reply.chunkDelayMs && !(await pause(reply.chunkDelayMs, signal))) return;
  }
  // Stalling after every event is a server that never closes the stream it has finished.
  if (reply.stallAfterEvents !== undefined && reply.stallAfterEvents >= events.length) {
    return stall(res, reply.pingEveryMs, signal);
  }
  res.end();
}

const PING = `event: ping\ndata: {"type": "ping"}\n\n`;

/** Holds the stream open, silent or with a `ping` every `pingEveryMs`, until either side gives up. */
async function stall(
  res: ServerResponse,
  pingEveryMs: number | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (!pingEveryMs) return void (await pause(Number.POSITIVE_INFINITY, signal));
  while ((await pause(pingEveryMs, signal)) && !res.destroyed) res.write(PING);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  if (res.headersSent) return void res.end();
  const body: Anthropic.ErrorResponse & { request_id: string } = {
    type: "error",
    error: { type, message } as Anthropic.ErrorObject,
    request_id: `req_${randomUUID().slice(0, 8)}`,
  };
  res.writeHead(status, { "content-type": "application/json", "request-id": body.request_id });
  res.end(JSON.stringify(body));
}
