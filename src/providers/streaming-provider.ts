import { setTimeout as delay } from "node:timers/promises";
import type { Provider, ProviderRequest, ProviderResponse } from "../core/agent/provider.ts";
import { ProviderError } from "../core/agent/provider.ts";
import { DEFAULT_MODEL_LIMITS, type ModelLimits } from "../core/config/model-section.ts";
import { type LoggerPort, silentLogger } from "../core/logger.ts";
import { type AttemptTimers, CallBudget } from "./deadlines.ts";
import {
  abortedError,
  type Failure,
  type FailureContext,
  keepingPartial,
  redactor,
  timeoutFailure,
} from "./failure.ts";
import { toolsParser } from "./openai-request.ts";
import { MAX_ERROR_BYTES, type ProviderOptions } from "./provider-options.ts";
import { freshProgress, type StreamProgress } from "./reply-stream.ts";
import { pause, retryWait } from "./retry.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.ts";
import type { FetchWatch } from "./watched-fetch.ts";

/** One attempt at a call: its limits, its clocks, what its fetch watches and what its stream delivered. */
export interface Attempt {
  readonly limits: ModelLimits;
  readonly timers: AttemptTimers;
  readonly watch: FetchWatch;
  readonly progress: StreamProgress;
  readonly budget: CallBudget;
  /** Aborts when the turn is cancelled or one of the attempt's clocks runs out. */
  readonly signal: AbortSignal;
}

/**
 * A {@link Provider} over a vendor SDK that streams every reply, and the call
 * every such provider makes alike: the limits asked afresh, one budget for
 * the call, a watchdog and a watched fetch per attempt, retries of what is
 * worth retrying while no text has been shown, and every failure turned into
 * a {@link ProviderError} a person can act on. A vendor says how a call
 * begins ({@link begin}: its request body and client), how one attempt
 * streams ({@link attempt}) and what a failure it threw means ({@link classify}).
 *
 * `Call` is what {@link begin} prepares once for all the attempts of a call.
 */
export abstract class StreamingProvider<Options extends ProviderOptions, Call> implements Provider {
  protected readonly options: Options;
  protected readonly logger: LoggerPort;
  /** Removes the API key from text that may reach a person or a log. */
  protected readonly redact: (text: string) => string;
  protected readonly parseTools: ReturnType<typeof toolsParser>;
  /** The server as logs and messages show it. */
  readonly #where: string;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #policy: RetryPolicy;

  constructor(options: Options, where: string) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.redact = redactor(options.apiKey);
    this.parseTools = toolsParser(this.logger);
    this.#where = where;
    this.#sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.#policy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    };
  }

  /** Builds what every attempt of this call sends, and the client that sends it. */
  protected abstract begin(request: ProviderRequest, limits: ModelLimits): Promise<Call>;

  /** Sends the call once and reads its stream into a response. */
  protected abstract attempt(
    call: Call,
    request: ProviderRequest,
    attempt: Attempt,
  ): Promise<ProviderResponse>;

  /** What something an attempt threw (an SDK error, a broken stream) means for the person and the retry. */
  protected abstract classify(
    call: Call,
    thrown: unknown,
    context: FailureContext,
    attempt: Attempt,
  ): Failure;

  /** Limits the options give under their own (a deprecated option's); none by default. */
  protected optionLimits(): Partial<ModelLimits> {
    return {};
  }

  async complete(request: ProviderRequest): Promise<ProviderResponse> {
    if (request.signal?.aborted) throw abortedError();
    const limits = this.#limitsNow();
    const context: FailureContext = { where: this.#where, limits, redact: this.redact };
    const call = await this.begin(request, limits);
    const budget = new CallBudget(limits.callMs);
    for (let tries = 1; ; tries++) {
      const progress = freshProgress();
      const timers = budget.attempt(limits);
      const watch: FetchWatch = {
        heard: () => timers.heard(),
        maxEventBytes: maxEventBytes(limits),
        maxErrorBytes: MAX_ERROR_BYTES,
      };
      const signal = request.signal
        ? AbortSignal.any([request.signal, timers.signal])
        : timers.signal;
      const attempt: Attempt = { limits, timers, watch, progress, budget, signal };
      let failure: Failure;
      try {
        const reply = await this.attempt(call, request, attempt);
        if (request.signal?.aborted) throw abortedError();
        return reply;
      } catch (thrown) {
        if (request.signal?.aborted) throw abortedError();
        // A finished reply whose stream then stalled was returned above; this one was not finished.
        if (timers.expired)
          throw keepingPartial(timeoutFailure(timers.expired, context).error, progress);
        if (thrown instanceof ProviderError) throw keepingPartial(thrown, progress);
        failure = this.classify(call, thrown, context, attempt);
      } finally {
        timers.close();
      }
      const waitMs = retryWait(failure, tries, progress, {
        logger: this.logger,
        policy: this.#policyFor(request),
        where: this.#where,
        redact: this.redact,
        budget,
      });
      await pause(this.#sleep, waitMs, request.signal);
    }
  }

  /** The retry policy for this call: the provider's, with fewer retries when the request asks for fewer. */
  #policyFor(request: ProviderRequest): RetryPolicy {
    const asked = request.maxRetries;
    if (asked === undefined || asked >= this.#policy.maxRetries) return this.#policy;
    return { ...this.#policy, maxRetries: Math.max(0, asked) };
  }

  /** The limits for this call: the defaults, under the options' own, under what the options give now. */
  #limitsNow(): ModelLimits {
    const { limits } = this.options;
    const given = typeof limits === "function" ? limits() : limits;
    return { ...DEFAULT_MODEL_LIMITS, ...this.optionLimits(), ...given };
  }
}

/**
 * The longest stream event read: room for a whole capped answer or tool call
 * in one event, even with every character escaped (`\u00e9` is six bytes).
 */
function maxEventBytes(limits: ModelLimits): number {
  return 8 * Math.max(limits.maxAnswerChars, limits.maxToolCallChars) + 64 * 1024;
}

/** A provider is made with a model name: without one, every call would fail the same way. */
export function checkModelNamed(model: string | undefined, example: string): void {
  if (!model?.trim()) {
    throw new ProviderError(
      "unconfigured",
      `No model name was given. Set SWITCHYARD_MODEL (e.g. ${example}), then restart.`,
    );
  }
}
