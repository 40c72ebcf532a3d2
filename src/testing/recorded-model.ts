/**
 * A real model behind the scripted one, with a cache: a request the cache
 * does not know is forwarded to the real model (any OpenAI-compatible
 * server) and its reply kept in a JSON file; a request it knows is answered
 * from the file. Commit the file, and the suite replays offline, the same
 * bytes every run, with no key.
 *
 * The key of a request is a hash of its messages and tools (not the model's
 * name or the stream settings), so a replay needs the bot to send what it
 * sent when the reply was recorded. Without a cache file every request is
 * forwarded.
 *
 * A request that names a model other than the fake's own (a scenario's
 * `judge_model`, a `/model` choice) is forwarded for that model; the rest
 * ask for `model`.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { FAKE_MODEL_ID, type RecordedRequest, type ScriptedReply } from "./fakes/openai-server.ts";

export interface ForwardOptions {
  /** The real server, e.g. `https://api.openai.com/v1`. */
  readonly baseURL: string;
  /** Unset: replay only; a request missing from the cache is an error reply. */
  readonly apiKey?: string;
  readonly model: string;
  /** The JSON file replies are kept in; created when missing. Unset: no cache, every request is forwarded. */
  readonly cacheFile?: string;
  /** Hears of each request that could not be answered (not cached and no key, or the real model failed), with the reason. */
  readonly onMiss?: (reason: string) => void;
}

interface CachedReply {
  readonly content?: string;
  readonly toolCalls?: { id: string; name: string; arguments: string }[];
}

/** The cache's key for a request: its messages and tools, hashed. */
export function requestKey(body: { messages?: unknown; tools?: unknown }): string {
  return createHash("sha256")
    .update(JSON.stringify({ messages: body.messages ?? [], tools: body.tools ?? [] }))
    .digest("hex");
}

/** Answers a request from the cache, or from the real model (then caches it). */
export function forwardingModel(
  options: ForwardOptions,
): (request: RecordedRequest) => Promise<ScriptedReply> {
  const { cacheFile } = options;
  const cache: Record<string, CachedReply> =
    cacheFile && existsSync(cacheFile)
      ? (JSON.parse(readFileSync(cacheFile, "utf8")) as Record<string, CachedReply>)
      : {};
  return async (request) => {
    const key = requestKey(request.body ?? {});
    let reply = cache[key];
    if (reply === undefined) {
      if (!options.apiKey) {
        const reason = `This request is not in ${cacheFile ?? "the cache (no cache file was given)"} and no API key was given to ask the real model (key ${key.slice(0, 12)}).`;
        options.onMiss?.(reason);
        return {
          status: 500,
          errorBody: {
            error: {
              message: reason,
              type: "server_error",
            },
          },
        };
      }
      try {
        reply = await askRealModel(options, request.body);
      } catch (error) {
        const reason = `The real model at ${options.baseURL} could not answer: ${(error as Error).message}`;
        options.onMiss?.(reason);
        return { status: 502, errorBody: { error: { message: reason, type: "server_error" } } };
      }
      if (cacheFile) {
        cache[key] = reply;
        writeFileSync(cacheFile, `${JSON.stringify(cache, null, 2)}\n`);
      }
    }
    return {
      ...(reply.content !== undefined ? { content: reply.content } : {}),
      ...(reply.toolCalls?.length
        ? {
            toolCalls: reply.toolCalls.map((c) => ({
              id: c.id,
              name: c.name,
              arguments: c.arguments,
            })),
          }
        : {}),
    };
  };
}

async function askRealModel(
  options: ForwardOptions,
  body: Record<string, unknown>,
): Promise<CachedReply> {
  const { stream: _stream, stream_options: _options, model: asked, ...rest } = body;
  const model = typeof asked === "string" && asked !== FAKE_MODEL_ID ? asked : options.model;
  const response = await fetch(`${options.baseURL.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${options.apiKey}` },
    body: JSON.stringify({ ...rest, model, stream: false }),
  });
  if (!response.ok) {
    throw new Error(
      `The real model answered HTTP ${response.status}: ${(await response.text()).slice(0, 500)}`,
    );
  }
  const completion = (await response.json()) as {
    choices?: {
      message?: {
        content?: string | null;
        tool_calls?: { id: string; function: { name: string; arguments: string } }[];
      };
    }[];
  };
  const message = completion.choices?.[0]?.message ?? {};
  const toolCalls = (message.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    arguments: c.function.arguments,
  }));
  return {
    ...(typeof message.content === "string" ? { content: message.content } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  };
}
