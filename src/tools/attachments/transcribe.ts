import type { OpenAI } from "openai";
import type { CapabilityStatus } from "../../core/availability/capabilities.ts";
import type { TranscriptionConfig } from "../../core/config/transcription-section.ts";
import { openAISdk } from "../../providers/openai-sdk.ts";

/** Turns a voice note's bytes into text. */
export type Transcriber = (
  bytes: Uint8Array,
  name: string,
  type: string,
  signal: AbortSignal,
) => Promise<string>;

export const TRANSCRIPTION_CAPABILITY = "transcription";

/**
 * The `transcription` capability: present when `transcription.base_url` is
 * set and its key variable holds a key (a local whisper server that needs
 * none takes any value, e.g. `none`).
 */
export function transcriptionCapability(
  config: TranscriptionConfig,
  env: Readonly<Record<string, string | undefined>>,
): CapabilityStatus {
  if (!config.baseUrl) {
    return {
      available: false,
      reason:
        "no transcription endpoint: set transcription.base_url (and its key) in the config file",
    };
  }
  if (!env[config.keyEnv]) {
    return {
      available: false,
      reason: `no transcription key: ${config.keyEnv} is not set (transcription.key_env names it)`,
    };
  }
  return { available: true };
}

/**
 * A transcriber over an OpenAI-compatible `/audio/transcriptions`, through
 * the openai SDK's `audio.transcriptions.create`. Undefined without the
 * capability.
 */
export function openAITranscriber(
  config: TranscriptionConfig,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
): Transcriber | undefined {
  if (!transcriptionCapability(config, env).available) return undefined;
  const options = {
    baseURL: config.baseUrl,
    apiKey: env[config.keyEnv] ?? "",
    timeout: timeoutMs,
    maxRetries: 1,
  };
  let client: OpenAI | undefined;
  return async (bytes, name, type, signal) => {
    // The SDK is imported at the first transcription, not with the package (openai-sdk.ts).
    const { OpenAI, toFile } = await openAISdk();
    client ??= new OpenAI(options);
    const file = await toFile(bytes, name, { type });
    const result = await client.audio.transcriptions.create(
      { file, model: config.model, response_format: "json" },
      { signal },
    );
    return result.text.trim();
  };
}
