import { setTimeout as delay } from "node:timers/promises";
import type * as AnthropicSDK from "@anthropic-ai/sdk";
import type { Provider, ProviderRequest, ProviderResponse } from "../../core/agent/provider.ts";
import { ProviderError } from "../../core/agent/provider.ts";
import {
  ANTHROPIC_MAX_TOKENS,
  DEFAULT_MODEL_LIMITS,
  type ModelLimits,
} from "../../core/config/model-section.ts";
import { type LoggerPort, silentLogger } from "../../core/logger.ts";
import { noteModel } from "../../observability/tracing-model.ts";
import { CallBudget } from "../deadlines.ts";
import {
  abortedError,
  type Failure,
  type FailureContext,
  keepingPartial,
  redactor,
  timeoutFailure,
} from "../failure.ts";
import { toolsParser } from "../openai-request.ts";
import { MAX_ERROR_BYTES, NO_API_KEY, type ProviderOptions } from "../provider-options.ts";
import { freshProgress } from "../reply-stream.ts";
import { pause, retryWait } from "../retry.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../retry-policy.ts";
import { type FetchWatch, watchedFetch } from "../watched-fetch.ts";
import { classifyFailure, displayURL } from "./errors.ts";
import { readMessageStream } from "./stream.ts";
import { buildMessagesRequest, type CacheTtl } from "./translate.ts";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

/** The model an Anthropic bot asks when `SWITCHYARD_MODEL` names none. */
export const ANTHROPIC_FALLBACK_MODEL = "claude-sonnet-4-6";

/** Replies are capped by `max_tokens`, which the Messages API requires. */
export const DEFAULT_MAX_TOKENS = ANTHROPIC_MAX_TOKENS;

/** Anthropic's Messages API; `baseURL` without `/v1` (the SDK adds `/v1/messages`). 529 is retried too. */
export interface AnthropicProviderOptions extends ProviderOptions {
  /** How long cache entries live after their last read; a function is asked per call. Default 5m. */
  cacheTtl?: CacheTtl | (() => CacheTtl | undefined);
  maxTokens?: number;
  /**
   * Extended thinking: the tokens the model may reason with before it
   * answers, at least 1024 and below `maxTokens` (the API's bounds). The
   * thinking blocks are kept in history and sent back as the API requires.
   * Unset: no thinking. With it, `temperature` is not sent (the API refuses both).
   */
  thinkingBudget?: number;
}

/** The SDK loads at the first call, so a bot on another provider never loads it. */
let sdkLoading: Promise<typeof AnthropicSDK> | undefined;
function loadSDK(): Promise<typeof AnthropicSDK> {
  sdkLoading ??= import("@anthropic-ai/sdk");
  return sdkLoading;
}

/**
 * A {@link Provider} for Anthropic's Messages API, on the official
 * `@anthropic-ai/sdk`. The turn's contract is translated to Anthropic's
 * `tools`, system blocks and messages deterministically (see translate.ts),
 * with `cache_control` breakpoints where they pay; the stream feeds the same
 * live edits; retries, clocks and messages work as for the OpenAI-compatible
 * provider, with 529 `overloaded` retried.
 *
 * @example
 * const provider = createAnthropicProvider({
 *   apiKey: env.ANTHROPIC_API_KEY,
 *   model: "claude-sonnet-4-6",
 *   limits: () => config.current.model,
 *   cacheTtl: "1h",
 * });
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  if (!options.model?.trim()) {
    throw new ProviderError(
      "unconfigured",
      `No model name was given. Set SWITCHYARD_MODEL (e.g. ${ANTHROPIC_FALLBACK_MODEL}), then restart.`,
    );
  }
  return new MessagesProvider(options);
}

class MessagesProvider implements Provider {
  readonly #options: AnthropicProviderOptions;
  readonly #logger: LoggerPort;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #policy: RetryPolicy;
  readonly #baseURL: string;
  readonly #where: string;
  readonly #redact: (text: string) => string;
  readonly #parseTools: ReturnType<typeof toolsParser>;
  #client: AnthropicSDK.Anthropic | undefined;

  constructor(options: AnthropicProviderOptions) {
    checkThinkingBudget(options.thinkingBudget, options.maxTokens ?? DEFAULT_MAX_TOKENS);
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.#policy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    };
    this.#baseURL = options.baseURL || ANTHROPIC_BASE_URL;
    this.#where = displayURL(this.#baseURL);
    this.#redact = redactor(options.apiKey);
    this.#parseTools = toolsParser(this.#logger);
  }

  async complete(request: ProviderRequest): Promise<ProviderResponse> {
    if (request.signal?.aborted) throw abortedError();
    const sdk = await loadSDK();
    const client = this.#clientOf(sdk);
    const limits = this.#limitsNow();
    const context: FailureContext = { where: this.#where, limits, redact: this.#redact };
    const ttl =
      typeof this.#options.cacheTtl === "function"
        ? this.#options.cacheTtl()
        : this.#options.cacheTtl;
    const { body } = buildMessagesRequest(
      request,
      {
        model: this.#options.model,
        maxTokens: this.#options.maxTokens ?? DEFAULT_MAX_TOKENS,
        cacheTtl: ttl ?? "5m",
        temperature: this.#options.temperature,
        thinkingBudget: this.#options.thinkingBudget,
      },
      this.#parseTools(request.tools),
    );
    noteModel(body.model);
    const budget = new CallBudget(limits.callMs);
    for (let tries = 1; ; tries++) {
      const progress = freshProgress();
      const timers = budget.attempt(limits);
      const watch: FetchWatch = {
        heard: () => timers.heard(),
        maxEventBytes: 8 * Math.max(limits.maxAnswerChars, limits.maxToolCallChars) + 64 * 1024,
        maxErrorBytes: MAX_ERROR_BYTES,
      };
      let failure: Failure;
      try {
        const signal = request.signal
          ? AbortSignal.any([request.signal, timers.signal])
          : timers.signal;
        const stream = await client
          .withOptions({ fetch: watchedFetch(watch) })
          .messages.create(body as unknown as AnthropicSDK.Anthropic.MessageCreateParamsStreaming, {
            signal,
            timeout: budget.remainingMs() + 1_000,
          });
        const reply = await readMessageStream(stream, {
          onText: request.onText,
          progress,
          logger: this.#logger,
          limits,
        });
        if (request.signal?.aborted) throw abortedError();
        return reply;
      } catch (thrown) {
        if (request.signal?.aborted) throw abortedError();
        if (timers.expired) {
          throw keepingPartial(timeoutFailure(timers.expired, context).error, progress);
        }
        if (thrown instanceof ProviderError) throw keepingPartial(thrown, progress);
        failure = classifyFailure(sdk, thrown, context, progress);
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

  #clientOf(sdk: typeof AnthropicSDK): AnthropicSDK.Anthropic {
    this.#client ??= new sdk.Anthropic({
      apiKey: this.#options.apiKey || NO_API_KEY,
      baseURL: this.#baseURL,
      maxRetries: 0,
      logger: {
        error: (message: string) => this.#logger.warn(`anthropic SDK: ${this.#redact(message)}`),
        warn: (message: string) => this.#logger.warn(`anthropic SDK: ${this.#redact(message)}`),
        info: () => {},
        debug: () => {},
      },
    });
    return this.#client;
  }

  #limitsNow(): ModelLimits {
    const { limits } = this.#options;
    const given = typeof limits === "function" ? limits() : limits;
    return { ...DEFAULT_MODEL_LIMITS, ...given };
  }
}

/** The API's bounds on extended thinking, checked when the provider is made rather than on every call. */
function checkThinkingBudget(budget: number | undefined, maxTokens: number): void {
  if (budget === undefined) return;
  if (!Number.isInteger(budget) || budget < 1024 || budget >= maxTokens) {
    throw new RangeError(
      `thinkingBudget must be a whole number of tokens from 1024 to below maxTokens (${maxTokens}), not ${budget}. Lower it, raise maxTokens, or leave it unset for no thinking.`,
    );
  }
}
