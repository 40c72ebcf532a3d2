import { trace } from "@opentelemetry/api";
import {
  type Provider,
  ProviderError,
  type ProviderRequest,
  type ProviderResponse,
} from "../core/agent/provider.ts";
import { findModel, type ModelProviderName, type ModelsConfig } from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";

/** Why a step moved to the next model: the failure's kind, with 529 named `overloaded`. */
export type FallbackReason = "rate_limit" | "server" | "overloaded" | "timeout";

export interface FallbackEvent {
  readonly from: string;
  readonly to: string;
  readonly reason: FallbackReason;
}

export interface FallbackOptions {
  /** The name of the bot's own model, for a request that names none. */
  readonly ownModel: string;
  /** The protocol of the bot's own model, and of a listed model that names none. */
  readonly ownProvider: ModelProviderName;
  readonly logger: LoggerPort;
  /** Told of every move to the next model (the metric). */
  readonly onFallback?: (event: FallbackEvent) => void;
}

/**
 * Retries of a model with a next one in its chain: two failures in a row
 * move the step on. An overloaded model tends to stay so for a while, and
 * the provider's four retries would make the person wait up to 7.5 s of
 * backoff first. The chain's last model keeps the provider's own retries.
 */
export const RETRIES_BEFORE_FALLBACK = 1;

/** The failures another model may not have; a bad request or a bad key would fail there too. */
function reasonOf(error: unknown): FallbackReason | undefined {
  if (!(error instanceof ProviderError)) return undefined;
  if (error.status === 529) return "overloaded";
  if (error.kind === "rate_limit" || error.kind === "server" || error.kind === "timeout") {
    return error.kind;
  }
  return undefined;
}

/**
 * A `models:` entry's `fallback: [...]`: when a step on that model fails with
 * a rate limit, a server error, overload or a timeout (after the provider's
 * retries, fewer while a next model waits: {@link RETRIES_BEFORE_FALLBACK})
 * and no text of the turn's answer has reached the person yet, the same
 * step goes to the next model of the chain, on whichever provider it is.
 * Once text has streamed, in this step or an earlier one of the turn
 * (`answerShown`), the failure stands: another model's answer in place of
 * what the person read would be worse than the cut-short note. Each move is
 * logged, traced and counted.
 *
 * The fallback request's cache key names the provider and the model
 * (`conv-1:openai:gpt-4.1`), so it never routes into the first model's
 * prompt cache, nor another provider's model of the same name. It is made of
 * the conversation's key and the config alone: the same on every turn.
 */
export function withFallback(
  provider: Provider,
  models: () => ModelsConfig,
  options: FallbackOptions,
): Provider {
  return {
    async complete(request: ProviderRequest): Promise<ProviderResponse> {
      const first = request.model ?? options.ownModel;
      // The answering agent's chain when it has one, else the model entry's own.
      const chain = request.fallback ?? findModel(models(), first)?.fallback ?? [];
      // Text of the turn's answer is out (an earlier step's): a failure now stands, as without a chain.
      if (chain.length === 0 || request.answerShown) return provider.complete(request);
      let shown = false;
      const onText = request.onText;
      const watched: ProviderRequest = onText
        ? {
            ...request,
            onText: (soFar) => {
              if (soFar !== "") shown = true;
              onText(soFar);
            },
          }
        : request;
      let from = first;
      let attempt = watched;
      for (let next = 0; ; next++) {
        const to = chain[next];
        try {
          return await provider.complete(to === undefined ? attempt : retryingLess(attempt));
        } catch (error) {
          const reason = reasonOf(error);
          if (to === undefined || reason === undefined || shown || request.signal?.aborted) {
            throw error;
          }
          options.logger.warn(
            `The model ${from} failed (${reason}) before answering; trying ${to} instead.`,
            { from, to, reason },
          );
          trace.getActiveSpan()?.addEvent("switchyard.model.fallback", {
            "switchyard.fallback.from": from,
            "switchyard.fallback.to": to,
            "switchyard.fallback.reason": reason,
          });
          options.onFallback?.({ from, to, reason });
          const protocol = findModel(models(), to)?.provider ?? options.ownProvider;
          attempt = { ...watched, model: to, cacheKey: `${request.cacheKey}:${protocol}:${to}` };
          from = to;
        }
      }
    },
  };
}

/** The request with at most {@link RETRIES_BEFORE_FALLBACK} retries (fewer, if it asked for fewer). */
function retryingLess(request: ProviderRequest): ProviderRequest {
  const maxRetries = Math.min(
    request.maxRetries ?? RETRIES_BEFORE_FALLBACK,
    RETRIES_BEFORE_FALLBACK,
  );
  return { ...request, maxRetries };
}
