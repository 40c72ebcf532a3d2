/**
 * `switchyard test --model real`: the model a scenario runs against is the
 * one the bot would use, named the usual way (`OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`, `SWITCHYARD_MODEL`). The bot still talks to the kit's
 * fake model, which forwards each request (recorded-model.ts), so the
 * scenario's tool and contract expectations read the same requests as with
 * a scripted model, and `--cache FILE` replays a recorded run offline.
 */
import { botModelOf } from "../core/config/bot-model.ts";
import type { ForwardOptions } from "./recorded-model.ts";

/** `--model real` cannot run as asked; the message says what to set. */
export class RealModelError extends Error {
  override readonly name = "RealModelError";
}

const OPENAI_URL = "https://api.openai.com/v1";

/**
 * Where `--model real` forwards to, from the environment. With a cache file
 * and no model configured, it replays the file alone (a request missing from
 * it fails that step, saying so).
 */
export function realModelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  cacheFile?: string,
): ForwardOptions {
  const apiKey = env.OPENAI_API_KEY?.trim();
  const baseURL = env.OPENAI_BASE_URL?.trim();
  if (!apiKey && !baseURL) {
    if (env.ANTHROPIC_API_KEY) {
      throw new RealModelError(
        "--model real speaks to OpenAI-compatible servers only, and only ANTHROPIC_API_KEY is set. Set OPENAI_API_KEY (and OPENAI_BASE_URL for another server, e.g. an OpenAI-compatible gateway in front of Claude) and SWITCHYARD_MODEL.",
      );
    }
    if (!cacheFile) {
      throw new RealModelError(
        "--model real needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) and SWITCHYARD_MODEL, or give --cache FILE to replay a recorded run.",
      );
    }
  }
  return {
    baseURL: baseURL || OPENAI_URL,
    // A local server without keys still needs one sent; with neither set, the cache alone answers.
    ...(apiKey || baseURL ? { apiKey: apiKey || "unused" } : {}),
    model: botModelOf(env),
    ...(cacheFile ? { cacheFile } : {}),
  };
}
