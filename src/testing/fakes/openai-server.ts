/**
 * A local OpenAI-compatible server that speaks the real Chat Completions wire
 * protocol, so integration and e2e tests can drive the real `openai` SDK.
 *
 * Replies are scripted per request; anything unscripted falls through to the
 * responder, whose default echoes the last user message.
 *
 * A reply can also misbehave the way real servers do: never send headers
 * (`neverAnswer`), stall after N chunks with or without keep-alive comments
 * (`stallAfterChunks`, `keepAliveMs`), end without a finish reason
 * (`omitFinishReason`), stream huge content or arguments in chosen piece sizes
 * (`contentChunkChars`, `argumentsChunkChars`), or send any body verbatim
 * (`body`: garbage events, an HTML page, nothing at all).
 *
 * @example
 * const fake = await startFakeOpenAI({ apiKey: "sk-test" });
 * fake.script(
 *   { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
 *   { content: "It is sunny in Paris." },
 * );
 * const client = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
 * // ... run the agent, then inspect fake.requests[1].body.messages
 * await fake.close();
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type OpenAI from "openai";
import { listenLocal, parseJson, pause, readBody } from "./local-server.ts";
import { ScriptedReplies } from "./scripted-replies.ts";

export interface ScriptedToolCall {
  /** Defaults to a fresh `call_...` id. */
  id?: string;
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (e.g. to test malformed JSON). */
  arguments: unknown;
}

export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Overrides the computed usage; unset fields keep their defaults. */
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number };
  /** A status >= 400 answers with an OpenAI error body instead of a completion. */
  status?: number;
  /** Extra response headers, e.g. `{ "retry-after": "2" }`. */
  headers?: Record<string, string>;
  /** Replaces the default `{ error: { message, type, param, code } }` body of an error reply. */
  errorBody?: unknown;
  /** Waits this long before answering (timeout and crash tests). */
  delayMs?: number;
  /** Waits this long between stream chunks (tests that crash mid-stream). */
  chunkDelayMs?: number;
  /** Defaults to "tool_calls" when there are tool calls, else "stop". */
  finishReason?: OpenAI.ChatCompletion.Choice["finish_reason"];
  /** Never sends the response headers: a server that took the request and hangs. */
  neverAnswer?: boolean;
  /** Streams this many chunks, then nothing more, holding the connection open: a stalled model. */
  stallAfterChunks?: number;
  /** While stalled, writes an SSE comment this often: a live server whose model is stuck. */
  keepAliveMs?: number;
  /** Ends the stream (with `[DONE]`) without the chunk that carries the finish reason. */
  omitFinishReason?: boolean;
  /** Characters per content delta; by default one word per delta. */
  contentChunkChars?: number;
  /** Characters per tool-call argument piece; default 8. */
  argumentsChunkChars?: number;
  /**
   * Sent verbatim instead of a completion (garbage SSE, an HTML page, nothing
   * at all), with `status` (default 200). An array is written piece by piece,
   * `chunkDelayMs` apart.
   */
  body?: string | readonly string[];
  /** The content-type of `body` or `errorBody`; default text/event-stream for a body. */
  contentType?: string;
}

export interface RecordedRequest {
  /** The parsed JSON request body (`undefined` when it was not valid JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields
  body: any;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  /** Set when the client closed the connection before the reply was complete (a cancelled request). */
  closedEarly?: boolean;
  /** `Date.now()` when the request arrived. */
  at?: number;
  /** `Date.now()` when a streamed reply's first content was written (loads measure first token to first visible). */
  firstContentAt?: number;
  /** `Date.now()` when a streamed reply was ended. */
  endedAt?: number;
}

export type Responder = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface FakeOpenAIOptions {
  /** Answers requests no scripted reply covers. Defaults to {@link echoResponder}. */
  responder?: Responder;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get a 401. */
  apiKey?: string;
}

export interface FakeOpenAI {
  /** The base URL to hand the SDK, e.g. `http://127.0.0.1:54321/v1`. */
  url: string;
  /** Every chat completion request, in arrival order, including rejected ones. */
  requests: RecordedRequest[];
  /** Every `/audio/transcriptions` request: the model asked for and the file's name and bytes. */
  transcriptions: { model: string; name: string; bytes: Uint8Array }[];
  /** Queues replies; each request consumes the next one before the responder is asked. */
  script(...replies: (ScriptedReply | Responder)[]): void;
  setResponder(responder: Responder): void;
  /** Stops listening and drops open connections, including replies still waiting on `delayMs`. */
  close(): Promise<void>;
}

export const FAKE_MODEL_ID = "fake-model";

/** The default responder: answers "echo: <last user message>". */
export const echoResponder: Responder = (request) => {
  const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
  const lastUser = messages.findLast((message) => message.role === "user");
  return { content: `echo: ${textOf(lastUser?.content)}` };
};

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const transcriptions: FakeOpenAI["transcriptions"] = [];
  const replies = new ScriptedReplies<RecordedRequest, ScriptedReply>(
    options.responder ?? echoResponder,
  );

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (!isAuthorized(req, options.apiKey) && path !== "/v1/chat/completions") {
      return sendError(res, 401);
    }
    if (req.method === "GET" && path === "/v1/models") {
      return sendJson(res, 200, {
        object: "list",
        data: [{ id: FAKE_MODEL_ID, object: "model", created: 0, owned_by: "switchyard-fake" }],
      });
    }
    if (req.method === "POST" && path === "/v1/audio/transcriptions") {
      return transcribe(req, res, transcriptions);
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return sendError(res, 404, { message: `Invalid URL (${req.method} ${req.url})` });
    }

    const rawBody = await readBody(req);
    const recorded: RecordedRequest = {
      body: parseJson(rawBody),
      headers: req.headers,
      rawBody,
      at: Date.now(),
    };
    requests.push(recorded);
    res.on("close", () => {
      if (!res.writableFinished) recorded.closedEarly = true;
    });
    if (!isAuthorized(req, options.apiKey)) return sendError(res, 401);
    if (recorded.body === undefined) {
      return sendError(res, 400, { message: "We could not parse the JSON body of your request." });
    }

    const reply = await replies.next(recorded);
    const signal = replies.signalFor(res);
    if (reply.neverAnswer) return void (await pause(Number.POSITIVE_INFINITY, signal));
    if (!(await pause(reply.delayMs, signal))) return;

    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.body !== undefined) return sendRaw(res, reply, signal);
    if (reply.status !== undefined && reply.status >= 400) {
      return sendError(res, reply.status, undefined, reply.errorBody, reply.contentType);
    }
    const completion = buildCompletion(reply, recorded);
    if (recorded.body.stream === true) {
      const includeUsage = recorded.body.stream_options?.include_usage === true;
      const chunks = toChunks(completion, includeUsage, reply);
      return streamCompletion(res, chunks, reply, signal, recorded);
    }
    return sendJson(res, reply.status ?? 200, completion);
  };

  const server = await listenLocal(handle, {
    onError: (res, error) =>
      sendError(res, 500, { message: `The fake OpenAI responder failed: ${String(error)}` }),
  });

  return {
    url: `${server.url}/v1`,
    requests,
    transcriptions,
    script: replies.script,
    setResponder: replies.setResponder,
    close: () => replies.close(() => server.close()),
  };
}

function buildCompletion(reply: ScriptedReply, request: RecordedRequest): OpenAI.ChatCompletion {
  const toolCalls = (reply.toolCalls ?? []).map(
    (call): OpenAI.ChatCompletionMessageFunctionToolCall => ({
      id: call.id ?? `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
      type: "function",
      function: {
        name: call.name,
        arguments:
          typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      },
    }),
  );
  const content = reply.content ?? (toolCalls.length > 0 ? null : "");
  const outputChars =
    (content ?? "").length +
    toolCalls.reduce((sum, call) => sum + call.function.arguments.length, 0);
  const promptTokens = reply.usage?.prompt_tokens ?? Math.ceil(request.rawBody.length / 4);
  const completionTokens =
    reply.usage?.completion_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
  return {
    id: `chatcmpl-${randomUUID().replaceAll("-", "")}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: typeof request.body.model === "string" ? request.body.model : FAKE_MODEL_ID,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: reply.usage?.cached_tokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  };
}

/**
 * Splits a completion into the chunks OpenAI streams: a role delta, content in
 * word-sized deltas, each tool call opened with its id, type and name and then
 * its arguments in pieces, the finish reason, and the usage chunk on request.
 */
export function toChunks(
  completion: OpenAI.ChatCompletion,
  includeUsage: boolean,
  shape: Pick<ScriptedReply, "contentChunkChars" | "argumentsChunkChars" | "omitFinishReason"> = {},
): OpenAI.ChatCompletionChunk[] {
  const choice = completion.choices[0];
  if (!choice) throw new Error("toChunks needs a completion with one choice");
  const { content, tool_calls: toolCalls = [] } = choice.message;
  type Delta = OpenAI.ChatCompletionChunk.Choice.Delta;

  const deltas: Delta[] = [];
  const pieces = shape.contentChunkChars
    ? slices(content ?? "", shape.contentChunkChars)
    : (content?.match(/\S+\s*|\s+/g) ?? []);
  for (const piece of pieces) deltas.push({ content: piece });
  toolCalls.forEach((call, index) => {
    if (call.type !== "function") return;
    const { name, arguments: args } = call.function;
    deltas.push({
      tool_calls: [{ index, id: call.id, type: "function", function: { name, arguments: "" } }],
    });
    for (const piece of slices(args, shape.argumentsChunkChars ?? 8)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  // Like OpenAI: a reply that starts with a tool call carries it in the role chunk.
  const opening: Delta = { role: "assistant", content: content ? "" : null, refusal: null };
  if (!content && deltas[0]?.tool_calls) Object.assign(opening, deltas.shift());

  const base = {
    id: completion.id,
    object: "chat.completion.chunk" as const,
    created: completion.created,
    model: completion.model,
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunkOf = (delta: Delta, finish: OpenAI.ChatCompletionChunk.Choice["finish_reason"]) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks: OpenAI.ChatCompletionChunk[] = [
    chunkOf(opening, null),
    ...deltas.map((delta) => chunkOf(delta, null)),
    ...(shape.omitFinishReason ? [] : [chunkOf({}, choice.finish_reason)]),
  ];
  if (includeUsage) chunks.push({ ...base, choices: [], usage: completion.usage ?? null });
  return chunks;
}

function slices(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

async function streamCompletion(
  res: ServerResponse,
  chunks: readonly OpenAI.ChatCompletionChunk[],
  reply: ScriptedReply,
  signal: AbortSignal,
  recorded: RecordedRequest,
): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  for (const [sent, chunk] of chunks.entries()) {
    if (sent === reply.stallAfterChunks) return stall(res, reply.keepAliveMs, signal);
    if (!(await write(res, `data: ${JSON.stringify(chunk)}\n\n`, signal))) return;
    if (recorded.firstContentAt === undefined && chunk.choices[0]?.delta?.content) {
      recorded.firstContentAt = Date.now();
    }
    if (!(await pause(reply.chunkDelayMs, signal))) return;
  }
  // Stalling after every chunk is a server that never ends the stream it has finished.
  if (reply.stallAfterChunks !== undefined && reply.stallAfterChunks >= chunks.length) {
    return stall(res, reply.keepAliveMs, signal);
  }
  res.end("data: [DONE]\n\n");
  recorded.endedAt = Date.now();
}

/** Holds the response open without a byte of data until the client or the server gives up. */
async function stall(
  res: ServerResponse,
  keepAliveMs: number | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (!keepAliveMs) return void (await pause(Number.POSITIVE_INFINITY, signal));
  while (await pause(keepAliveMs, signal)) {
    if (!(await write(res, ": keep-alive\n\n", signal))) return;
  }
}

async function sendRaw(res: ServerResponse, reply: ScriptedReply, signal: AbortSignal) {
  res.writeHead(reply.status ?? 200, {
    ...SSE_HEADERS,
    "content-type": reply.contentType ?? SSE_HEADERS["content-type"],
  });
  const pieces = typeof reply.body === "string" ? [reply.body] : (reply.body ?? []);
  for (const piece of pieces) {
    if (!(await write(res, piece, signal))) return;
    if (!(await pause(reply.chunkDelayMs, signal))) return;
  }
  res.end();
}

/** Writes with backpressure, so a huge reply streams instead of piling up in memory. */
async function write(res: ServerResponse, text: string, signal: AbortSignal): Promise<boolean> {
  if (res.destroyed || signal.aborted) return false;
  if (res.write(text)) return true;
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      signal.removeEventListener("abort", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
    signal.addEventListener("abort", onClose, { once: true });
  });
}

const ERROR_KINDS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: null, message: "Invalid request." },
  401: {
    type: "invalid_request_error",
    code: "invalid_api_key",
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
  },
  404: { type: "invalid_request_error", code: null, message: "Not found." },
  429: {
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for requests. Please try again later.",
  },
  500: {
    type: "server_error",
    code: null,
    message: "The server had an error processing your request.",
  },
  503: { type: "server_error", code: null, message: "The engine is currently overloaded." },
};

function sendError(
  res: ServerResponse,
  status: number,
  override: { message?: string } = {},
  body?: unknown,
  contentType?: string,
): void {
  if (body !== undefined) {
    res.statusCode = status;
    res.setHeader(
      "content-type",
      contentType ?? (typeof body === "string" ? "text/plain" : "application/json"),
    );
    res.end(typeof body === "string" ? body : JSON.stringify(body));
    return;
  }
  const kind = ERROR_KINDS[status] ?? ERROR_KINDS[status < 500 ? 400 : 500];
  sendJson(res, status, {
    error: {
      message: override.message ?? kind?.message,
      type: kind?.type,
      param: null,
      code: kind?.code,
    },
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
}

function isAuthorized(req: IncomingMessage, apiKey: string | undefined): boolean {
  return apiKey === undefined || req.headers.authorization === `Bearer ${apiKey}`;
}

/**
 * `/audio/transcriptions` as OpenAI serves it: a multipart form with `file`
 * and `model`. Only Ogg bytes (the container of Telegram and Discord voice
 * notes, magic `OggS`) are heard: the transcript says how many bytes came,
 * so a test sees the bytes arrived whole; anything else is a 400, as a
 * server that cannot decode the audio answers.
 */
async function transcribe(
  req: IncomingMessage,
  res: ServerResponse,
  seen: FakeOpenAI["transcriptions"],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const form = await new Request("http://fake/", {
    method: "POST",
    headers: { "content-type": String(req.headers["content-type"] ?? "") },
    body: Buffer.concat(chunks),
  }).formData();
  const file = form.get("file");
  if (!(file instanceof Blob)) return sendError(res, 400, { message: "file is required" });
  const bytes = new Uint8Array(await file.arrayBuffer());
  const name = file instanceof File ? file.name : "file";
  seen.push({ model: String(form.get("model") ?? ""), name, bytes });
  if (Buffer.from(bytes.subarray(0, 4)).toString("latin1") !== "OggS") {
    return sendError(res, 400, { message: "Invalid file format: could not decode the audio." });
  }
  return sendJson(res, 200, { text: `a voice note of ${bytes.byteLength} bytes, heard` });
}

/** The text of a chat message's content: a string, or its text parts joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) =>
      part.type === "text" ? (part.text ?? "") : "",
    )
    .join("");
}
