import { setTimeout as delay } from "node:timers/promises";
import OpenAI from "openai";
import type { Provider, ProviderRequest, ProviderResponse } from "../core/agent/provider.ts";
import { ProviderError } from "../core/agent/provider.ts";
import { type LoggerPort, silentLogger } from "../core/availability/warnings.ts";
import {
  abortedError,
  classifyFailure,
  displayURL,
  type FailureContext,
  redactor,
} from "./openai-errors.ts";
import { buildChatRequest, toolsParser } from "./openai-request.ts";
import { readCompletionStream, type StreamProgress } from "./openai-stream.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelayMs } from "./retry-policy.ts";

export { UNCONFIGURED_MESSAGE, unconfiguredProvider } from "./unconfigured.ts";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIProviderOptions {
  /** Omit for a local server that wants none; a placeholder is sent instead. */
  apiKey?: string;
  /** Any OpenAI-compatible server; defaults to OpenAI's. The SDK's env fallback is not used. */
  baseURL?: string;
  model: string;
  /** Retries of 429, 408, 5xx and connection failures, after the first attempt. Default 4. */
  maxRetries?: number;
  /** How long to wait for the response to start (headers), per attempt. Default 120 s. */
  timeoutMs?: number;
  temperature?: number;
  /** Hears about retries and odd tool bytes; never the API key. */
  logger?: LoggerPort;
  /** How to wait between retries; tests inject one that records the delays. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** The SDK refuses to start without a key; local servers ignore it. */
const NO_API_KEY = "no-api-key";

/**
 * A {@link Provider} for any OpenAI-compatible Chat Completions server, on the
 * official `openai` SDK. It streams every reply, retries what is worth
 * retrying (429 honouring `retry-after`, 5xx, dropped connections) as long as
 * no text has been shown yet, and turns every failure into a
 * {@link ProviderError} whose message a person in the chat can act on.
 *
 * @example
 * const provider = createOpenAIProvider({
 *   apiKey: env.OPENAI_API_KEY,
 *   baseURL: env.OPENAI_BASE_URL,
 *   model: env.SWITCHYARD_MODEL,
 *   logger,
 * });
 * const reply = await provider.complete({
 *   system: "You are a helpful bot.",
 *   tools: contract.tools,
 *   messages: [{ role: "user", content: "hi" }],
 *   cacheKey: conversationId,
 *   onText: (soFar) => draft.edit(soFar),
 * });
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  if (!options.model?.trim()) {
    throw new ProviderError(
      "unconfigured",
      "No model name was given. Set SWITCHYARD_MODEL (e.g. gpt-4.1-mini), then restart.",
    );
  }
  const baseURL = options.baseURL || OPENAI_BASE_URL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const logger = options.logger ?? silentLogger;
  const sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
  };
  const context: FailureContext = {
    where: displayURL(baseURL),
    timeoutMs,
    redact: redactor(options.apiKey),
  };
  const client = new OpenAI({
    apiKey: options.apiKey || NO_API_KEY,
    baseURL,
    maxRetries: 0,
    timeout: timeoutMs,
  });
  const settings = { model: options.model, temperature: options.temperature };
  const parseTools = toolsParser(logger);

  const attempt = async (
    request: ProviderRequest,
    body: OpenAI.ChatCompletionCreateParamsStreaming,
    progress: StreamProgress,
  ): Promise<ProviderResponse> => {
    const stream = await client.chat.completions.create(body, { signal: request.signal });
    return readCompletionStream(stream, {
      onText: request.onText,
      signal: request.signal,
      progress,
      logger,
    });
  };

  return {
    async complete(request) {
      const body = buildChatRequest(request, settings, parseTools(request.tools));
      for (let tries = 1; ; tries++) {
        const progress: StreamProgress = { textShown: false };
        try {
          return await attempt(request, body, progress);
        } catch (thrown) {
          if (thrown instanceof ProviderError) throw thrown;
          if (request.signal?.aborted) throw abortedError();
          const failure = classifyFailure(thrown, context);
          if (failure === undefined) throw thrown;
          // Retrying after text was shown would show a second, different reply.
          if (!failure.retryable || progress.textShown || tries > policy.maxRetries) {
            throw failure.error;
          }
          const waitMs = retryDelayMs(tries, failure.headers, policy);
          const { kind, status } = failure.error;
          logger.warn(
            `The model provider failed (${status ?? kind}); retrying in ${waitMs} ms, attempt ${tries + 1} of ${policy.maxRetries + 1}.`,
            { kind, status, attempt: tries + 1, delayMs: waitMs, baseURL: context.where },
          );
          await pause(sleep, waitMs, request.signal);
        }
      }
    },
  };
}

/** Waits, but gives up as soon as the request is cancelled, whatever `sleep` does. */
async function pause(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) throw abortedError();
  let onAbort = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortedError());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), cancelled]);
  } catch (error) {
    if (signal.aborted) throw abortedError();
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
