import { ProviderError } from "../core/agent/provider.ts";
import { MODEL_LIMIT_RULES, type ModelLimits } from "../core/config/model-section.ts";
import type { Expiry } from "./deadlines.ts";
import type { StreamProgress } from "./reply-stream.ts";

/**
 * What a failed attempt amounts to, for every provider. What only one API
 * sends (OpenAI's quota 429, Anthropic's 529 `overloaded`) is classified in
 * that provider's own errors file; the clocks, cancellation and a kept partial
 * answer read the same whichever provider failed, so they live here.
 */

/** A failed attempt, as the retry loop sees it. */
export interface Failure {
  /** What the person is told if this is the last attempt. */
  readonly error: ProviderError;
  readonly retryable: boolean;
  /** Response headers, for `retry-after`. */
  readonly headers?: Headers;
  /** Not a provider failure but something nobody expected (a bug?): worth a log line. */
  readonly unexpected?: unknown;
}

/** What the messages may say about where the provider is, and what they must never say. */
export interface FailureContext {
  /** The base URL as shown to people: no credentials, no query. */
  readonly where: string;
  readonly limits: ModelLimits;
  /** Removes the API key from text that came from the server. */
  readonly redact: (text: string) => string;
}

export const ABORTED_MESSAGE = "The request to the model was cancelled.";

export function abortedError(): ProviderError {
  return new ProviderError("aborted", ABORTED_MESSAGE);
}

/**
 * What the person is told when one of the call's clocks ran out. A timeout is
 * never retried: the person has already waited the whole timeout once.
 */
export function timeoutFailure(expiry: Expiry, context: FailureContext): Failure {
  const { limits, where } = context;
  const setting = (name: keyof ModelLimits) =>
    `${MODEL_LIMIT_RULES[name].env} (model.${MODEL_LIMIT_RULES[name].key})`;
  const message = {
    first_byte: `The model did not start its reply within ${duration(limits.firstByteMs)}, so I stopped waiting. Please try again in a moment. If this keeps happening, the model server at ${where} is overloaded or down, or this model needs longer before it starts: raise ${setting("firstByteMs")}.`,
    idle: `The model went quiet in the middle of its reply (nothing for ${duration(limits.idleMs)}), so I stopped waiting. Please try again. If this keeps happening, check the model server at ${where}, or raise ${setting("idleMs")}.`,
    call: `The model took longer than ${duration(limits.callMs)} on one request, so I stopped it. Please try again, or ask for something smaller. (The limit is ${setting("callMs")}.)`,
  }[expiry];
  return { error: new ProviderError("timeout", message), retryable: false };
}

/**
 * A failure after part of the answer arrived keeps that part: the person may
 * have watched it stream in, and the final answer replaces what they saw.
 */
export function keepingPartial(error: ProviderError, progress: StreamProgress): ProviderError {
  if (progress.text.trim() === "") return error;
  return new ProviderError(error.kind, `${progress.text}\n\n(${error.message})`, error.status);
}

/** Replaces every occurrence of `secret` in text that may reach a person or a log. */
export function redactor(secret: string | undefined): (text: string) => string {
  if (!secret) return (text) => text;
  return (text) => text.replaceAll(secret, "[redacted]");
}

function duration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = ms / 1_000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
