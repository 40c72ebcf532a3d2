import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * Where voice notes are transcribed: any OpenAI-compatible
 * `/audio/transcriptions` endpoint (OpenAI, Groq, a local whisper server).
 * Without a `base_url` and a key there is no `transcription` capability, and
 * voice notes are named, not heard. The key stays in the environment.
 *
 * ```yaml
 * transcription:
 *   base_url: https://api.openai.com/v1
 *   model: whisper-1
 *   key_env: OPENAI_API_KEY     # the variable that holds the key
 * ```
 */
export interface TranscriptionConfig {
  readonly baseUrl?: string;
  readonly model: string;
  readonly keyEnv: string;
}

export const DEFAULT_TRANSCRIPTION: TranscriptionConfig = Object.freeze({
  model: "whisper-1",
  keyEnv: "OPENAI_API_KEY",
});

const text = (what: string) =>
  z
    .string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` })
    .trim()
    .min(1, { error: `must not be empty: write ${what}, or leave the key out.` })
    .optional();

export const transcriptionSection = sectionMap("transcription", {
  base_url: text("an http(s) URL such as https://api.openai.com/v1").refine(
    (url) => url === undefined || /^https?:\/\/[^\s]+$/.test(url),
    { message: "must be an http(s) URL such as https://api.openai.com/v1." },
  ),
  model: text("a model name such as whisper-1"),
  key_env: text("the name of an environment variable such as OPENAI_API_KEY").refine(
    (name) => name === undefined || /^[A-Za-z_][A-Za-z0-9_]*$/.test(name),
    { message: "must be the name of an environment variable, such as OPENAI_API_KEY." },
  ),
}).transform(
  (s): TranscriptionConfig =>
    Object.freeze({
      ...(s.base_url ? { baseUrl: s.base_url } : {}),
      model: s.model ?? DEFAULT_TRANSCRIPTION.model,
      keyEnv: s.key_env ?? DEFAULT_TRANSCRIPTION.keyEnv,
    }),
);
