import { setTimeout as delay } from "node:timers/promises";
import type { ClientOptions, OpenAI } from "openai";
import type { Provider, ProviderRequest, ProviderResponse } from "../core/agent/provider.ts";
import { ProviderError } from "../core/agent/provider.ts";
import { FALLBACK_MODEL } from "../core/config/bot-model.ts";
import { DEFAULT_MODEL_LIMITS, type ModelLimits } from "../core/config/model-section.ts";
import { type LoggerPort, silentLogger } from "../core/logger.ts";
import { noteModel } from "../observability/tracing-model.ts";
import { type AttemptTimers, CallBudget } from "./deadlines.ts";
import {
  abortedError,
  type Failure,
  type FailureContext,
  keepingPartial,
  redactor,
  timeoutFailure,
} from "./failure.ts";
import { classifyFailure, displayURL } from "./openai-errors.ts";
import { buildChatRequest, toolsParser } from "./openai-request.ts";
import { openAISdk } from "./openai-sdk.ts";
import { readCompletionStream } from "./openai-stream.ts";
import { MAX_ERROR_BYTES, NO_API_KEY, type ProviderOptions } from "./provider-options.ts";
import { freshProgress, type StreamProgress } from "./reply-stream.ts";
import { pause, retryWait } from "./retry.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.ts";
import { type FetchWatch, watchedFetch } from "./watched-fetch.ts";

export { UNCONFIGURED_MESSAGE, unconfiguredProvider } from "./unconfigured.ts";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** An OpenAI-compatible server: any, OpenAI's by default (`baseURL`). */
export interface OpenAIProviderOptions extends ProviderOptions {
  /** @deprecated The first-byte timeout: use `limits.firstByteMs`. */
  timeoutMs?: number;
}

/**
 * A {@link Provider} for any OpenAI-compatible Chat Completions server, on the
 * official `openai` SDK. It streams every reply, retries what is worth
 * retrying (429 honouring `retry-after`, 5xx, dropped connections) as long as
 * no text has been shown yet, and turns every failure into a
 * {@link ProviderError} whose message a person in the chat can act on.
 *
 * Every call is bounded in time: the reply must start within `firstByteMs`,
 * may not go quiet for `idleMs` once started, and the call with all its
 * retries ends within `callMs`. The turn's signal cancels it at once.
 *
 * @example
 * const provider = createOpenAIProvider({
 *   apiKey: env.OPENAI_API_KEY,
 *   baseURL: env.OPENAI_BASE_URL,
 *   model: env.SWITCHYARD_MODEL,
 *   limits: () => config.current.model,
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
      `No model name was given. Set SWITCHYARD_MODEL (e.g. ${FALLBACK_MODEL}), then restart.`,
    );
  }
  return new ChatCompletionsProvider(options);
}

/** One attempt at a call: its limits, its timers, what its fetch watches and what its stream delivered. */
interface Attempt {
  readonly limits: ModelLimits;
  readonly timers: AttemptTimers;
  readonly watch: FetchWatch;
  readonly progress: StreamProgress;
  readonly budget: CallBudget;
}

class ChatCompletionsProvider implements Provider {
  readonly #options: OpenAIProviderOptions;
  readonly #logger: LoggerPort;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #policy: RetryPolicy;
  /** The server as logs and messages show it. */
  readonly #where: string;
  readonly #redact: (text: string) => string;
  readonly #clientOptions: ClientOptions;
  #client: OpenAI | undefined;
  readonly #parseTools: ReturnType<typeof toolsParser>;

  constructor(options: OpenAIProviderOptions) {
    const baseURL = options.baseURL || OPENAI_BASE_URL;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.#policy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    };
    this.#where = displayURL(baseURL);
    this.#redact = redactor(options.apiKey);
    this.#clientOptions = {
      apiKey: options.apiKey || NO_API_KEY,
      baseURL,
      maxRetries: 0,
      logger: sdkLogger(this.#logger, this.#redact),
    };
    this.#parseTools = toolsParser(this.#logger);
  }

  async complete(request: ProviderRequest): Promise<ProviderResponse> {
    if (request.signal?.aborted) throw abortedError();
    const limits = this.#limitsNow();
    const context: FailureContext = { where: this.#where, limits, redact: this.#redact };
    const settings = { model: this.#options.model, temperature: this.#options.temperature };
    const body = buildChatRequest(request, settings, this.#parseTools(request.tools));
    noteModel(body.model);
    const budget = new CallBudget(limits.callMs);
    const client = await this.#sdkClient();
    for (let tries = 1; ; tries++) {
      const progress = freshProgress();
      const timers = budget.attempt(limits);
      const watch: FetchWatch = {
        heard: () => timers.heard(),
        maxEventBytes: maxEventBytes(limits),
        maxErrorBytes: MAX_ERROR_BYTES,
      };
      let failure: Failure;
      try {
        return await this.#attempt(client, request, body, {
          limits,
          timers,
          watch,
          progress,
          budget,
        });
      } catch (thrown) {
        if (request.signal?.aborted) throw abortedError();
        // A finished reply whose stream then stalled was returned above; this one was not finished.
        if (timers.expired)
          throw keepingPartial(timeoutFailure(timers.expired, context).error, progress);
        if (thrown instanceof ProviderError) throw keepingPartial(thrown, progress);
        failure = classifyFailure(thrown, context, { progress, contentType: watch.contentType });
      } finally {
        timers.close();
      }
      const waitMs = retryWait(failure, tries, progress, {
        logger: this.#logger,
        policy: this.#policy,
        where: this.#where,
        redact: this.#redact,
        budget,
      });
      await pause(this.#sleep, waitMs, request.signal);
    }
  }

  /** The limits for this call: the defaults, under the deprecated timeout, under what the options give now. */
  #limitsNow(): ModelLimits {
    const { limits, timeoutMs } = this.#options;
    const given = typeof limits === "function" ? limits() : limits;
    return {
      ...DEFAULT_MODEL_LIMITS,
      ...(timeoutMs === undefined ? {} : { firstByteMs: timeoutMs }),
      ...given,
    };
  }

  /** The SDK's client, built at the first call, when the SDK is imported (openai-sdk.ts). */
  async #sdkClient(): Promise<OpenAI> {
    this.#client ??= new (await openAISdk()).OpenAI(this.#clientOptions);
    return this.#client;
  }

  async #attempt(
    client: OpenAI,
    request: ProviderRequest,
    body: OpenAI.ChatCompletionCreateParamsStreaming,
    { limits, timers, watch, progress, budget }: Attempt,
  ): Promise<ProviderResponse> {
    const signal = request.signal
      ? AbortSignal.any([request.signal, timers.signal])
      : timers.signal;
    const watched = client.withOptions({ fetch: watchedFetch(watch) });
    const stream = await watched.chat.completions.create(
      body,
      // The SDK's own timeout only backs ours up: it stops at the headers, ours does not.
      { signal, timeout: budget.remainingMs() + 1_000 },
    );
    const reply = await readCompletionStream(stream, {
      onText: request.onText,
      progress,
      logger: this.#logger,
      limits,
    });
    if (request.signal?.aborted) throw abortedError();
    return reply;
  }
}

/**
 * The longest stream event read: room for a whole capped answer or tool call
 * in one event, even with every character escaped (`\u00e9` is six bytes).
 */
function maxEventBytes(limits: ModelLimits): number {
  return 8 * Math.max(limits.maxAnswerChars, limits.maxToolCallChars) + 64 * 1024;
}

/**
 * The SDK logs a stream event it cannot parse, whole, to the console. It goes
 * to our logger instead, cut short: it is the model's output, and may be huge.
 */
function sdkLogger(
  logger: LoggerPort,
  redact: (text: string) => string,
): NonNullable<ClientOptions["logger"]> {
  const warn = (message: string, ...details: unknown[]) =>
    logger.warn(`openai SDK: ${message}`, {
      details: redact(details.map((d) => String(d)).join(" ")).slice(0, 300),
    });
  return { error: warn, warn, info: () => {}, debug: () => {} };
}
