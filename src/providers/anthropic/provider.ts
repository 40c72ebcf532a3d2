import type * as AnthropicSDK from "@anthropic-ai/sdk";
import type { Provider, ProviderRequest, ProviderResponse } from "../../core/agent/provider.ts";
import { ANTHROPIC_MAX_TOKENS } from "../../core/config/model-section.ts";
import { noteModel } from "../../observability/tracing-model.ts";
import type { Failure, FailureContext } from "../failure.ts";
import { modelFetch } from "../model-fetch.ts";
import { NO_API_KEY, type ProviderOptions } from "../provider-options.ts";
import { type Attempt, checkModelNamed, StreamingProvider } from "../streaming-provider.ts";
import { watchedFetch } from "../watched-fetch.ts";
import { classifyFailure, displayAnthropicURL } from "./errors.ts";
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
  checkModelNamed(options.model, ANTHROPIC_FALLBACK_MODEL);
  return new MessagesProvider(options);
}

/** What every attempt of one call sends, the client that sends it and the SDK its errors come from. */
interface MessagesCall {
  readonly sdk: typeof AnthropicSDK;
  readonly client: AnthropicSDK.Anthropic;
  readonly body: AnthropicSDK.Anthropic.MessageCreateParamsStreaming;
}

class MessagesProvider extends StreamingProvider<AnthropicProviderOptions, MessagesCall> {
  readonly #baseURL: string;
  /** Where a request goes, as the SDK's errors name it: `{base}/v1/messages`, no credentials or query. */
  readonly #request: { readonly method: string; readonly url: string };
  #client: AnthropicSDK.Anthropic | undefined;
  readonly #sdkLog = (message: string) =>
    this.logger.warn(`anthropic SDK: ${this.redact(message)}`);

  constructor(options: AnthropicProviderOptions) {
    checkThinkingBudget(options.thinkingBudget, options.maxTokens ?? DEFAULT_MAX_TOKENS);
    const baseURL = options.baseURL || ANTHROPIC_BASE_URL;
    super(options, displayAnthropicURL(baseURL));
    this.#baseURL = baseURL;
    const { origin, pathname } = new URL(`${baseURL.replace(/\/+$/, "")}/v1/messages`);
    this.#request = { method: "post", url: origin + pathname };
  }

  protected override async begin(request: ProviderRequest): Promise<MessagesCall> {
    const sdk = await loadSDK();
    const client = this.#clientOf(sdk);
    const ttl =
      typeof this.options.cacheTtl === "function" ? this.options.cacheTtl() : this.options.cacheTtl;
    const { body } = buildMessagesRequest(
      request,
      {
        model: this.options.model,
        maxTokens: this.options.maxTokens ?? DEFAULT_MAX_TOKENS,
        cacheTtl: ttl ?? "5m",
        temperature: this.options.temperature,
        thinkingBudget: this.options.thinkingBudget,
      },
      this.parseTools(request.tools),
    );
    noteModel(body.model);
    return {
      sdk,
      client,
      body: body as unknown as AnthropicSDK.Anthropic.MessageCreateParamsStreaming,
    };
  }

  protected override async attempt(
    { sdk, client, body }: MessagesCall,
    request: ProviderRequest,
    { limits, watch, progress, budget, signal }: Attempt,
  ): Promise<ProviderResponse> {
    // The SDK sends the request and answers its failures; the reply's body is read here, as it comes.
    const response = await client
      .withOptions({ fetch: watchedFetch(watch, "as-is", modelFetch) })
      .messages.create(body, { signal, timeout: budget.remainingMs() + 1_000 })
      .asResponse();
    return readMessageStream(response, {
      onText: request.onText,
      progress,
      logger: this.logger,
      limits,
      watch: { heard: watch.heard, maxEventBytes: watch.maxEventBytes, signal },
      sdk,
      request: this.#request,
      sdkLog: this.#sdkLog,
    });
  }

  protected override classify(
    { sdk }: MessagesCall,
    thrown: unknown,
    context: FailureContext,
    { progress }: Attempt,
  ): Failure {
    return classifyFailure(sdk, thrown, context, { progress });
  }

  #clientOf(sdk: typeof AnthropicSDK): AnthropicSDK.Anthropic {
    this.#client ??= new sdk.Anthropic({
      apiKey: this.options.apiKey || NO_API_KEY,
      baseURL: this.#baseURL,
      maxRetries: 0,
      logger: {
        error: this.#sdkLog,
        warn: this.#sdkLog,
        info: () => {},
        debug: () => {},
      },
    });
    return this.#client;
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
