import type { ClientOptions, OpenAI } from "openai";
import type { Provider, ProviderRequest, ProviderResponse } from "../core/agent/provider.ts";
import { FALLBACK_MODEL } from "../core/config/bot-model.ts";
import type { ModelLimits } from "../core/config/model-section.ts";
import type { LoggerPort } from "../core/logger.ts";
import { noteModel } from "../observability/tracing-model.ts";
import type { Failure, FailureContext } from "./failure.ts";
import { modelFetch } from "./model-fetch.ts";
import { classifyFailure, displayURL } from "./openai-errors.ts";
import { buildChatRequest } from "./openai-request.ts";
import { openAISdk } from "./openai-sdk.ts";
import { readCompletionStream } from "./openai-stream.ts";
import { NO_API_KEY, type ProviderOptions } from "./provider-options.ts";
import { type Attempt, checkModelNamed, StreamingProvider } from "./streaming-provider.ts";
import { watchedFetch } from "./watched-fetch.ts";

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
  checkModelNamed(options.model, FALLBACK_MODEL);
  return new ChatCompletionsProvider(options);
}

/** What every attempt of one call sends, and the client that sends it. */
interface ChatCall {
  readonly client: OpenAI;
  readonly body: OpenAI.ChatCompletionCreateParamsStreaming;
}

class ChatCompletionsProvider extends StreamingProvider<OpenAIProviderOptions, ChatCall> {
  readonly #clientOptions: ClientOptions;
  #client: OpenAI | undefined;
  readonly #sdkLog: (message: string, ...details: unknown[]) => void;

  constructor(options: OpenAIProviderOptions) {
    const baseURL = options.baseURL || OPENAI_BASE_URL;
    super(options, displayURL(baseURL));
    const logger = sdkLogger(this.logger, this.redact);
    this.#sdkLog = logger.error;
    this.#clientOptions = { apiKey: options.apiKey || NO_API_KEY, baseURL, maxRetries: 0, logger };
  }

  protected override async begin(request: ProviderRequest): Promise<ChatCall> {
    const settings = { model: this.options.model, temperature: this.options.temperature };
    const body = buildChatRequest(request, settings, this.parseTools(request.tools));
    noteModel(body.model);
    return { client: await this.#sdkClient(), body };
  }

  /** The deprecated timeout, under what `limits` gives. */
  protected override optionLimits(): Partial<ModelLimits> {
    const { timeoutMs } = this.options;
    return timeoutMs === undefined ? {} : { firstByteMs: timeoutMs };
  }

  /** The SDK's client, built at the first call, when the SDK is imported (openai-sdk.ts). */
  async #sdkClient(): Promise<OpenAI> {
    this.#client ??= new (await openAISdk()).OpenAI(this.#clientOptions);
    return this.#client;
  }

  protected override async attempt(
    { client, body }: ChatCall,
    request: ProviderRequest,
    { limits, watch, progress, budget, signal }: Attempt,
  ): Promise<ProviderResponse> {
    // The SDK sends the request and answers its failures; the reply's body is read here, as it comes.
    const watched = client.withOptions({ fetch: watchedFetch(watch, "as-is", modelFetch) });
    const response = await watched.chat.completions
      .create(
        body,
        // The SDK's own timeout only backs ours up: it stops at the headers, ours does not.
        { signal, timeout: budget.remainingMs() + 1_000 },
      )
      .asResponse();
    return readCompletionStream(response, {
      onText: request.onText,
      progress,
      logger: this.logger,
      limits,
      watch: { heard: watch.heard, maxEventBytes: watch.maxEventBytes, signal },
      sdkLog: this.#sdkLog,
    });
  }

  protected override classify(
    _call: ChatCall,
    thrown: unknown,
    context: FailureContext,
    { progress, watch }: Attempt,
  ): Failure {
    return classifyFailure(thrown, context, { progress, contentType: watch.contentType });
  }
}

/**
 * The SDK logs to the console, and would log a stream event it cannot parse
 * whole. It goes to our logger instead, cut short: it may be the model's
 * output, and huge. openai-stream.ts logs such an event here too.
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
