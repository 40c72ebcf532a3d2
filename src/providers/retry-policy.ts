/**
 * When to try a failed model request again, and how long to wait first.
 * The provider owns this instead of the SDK (whose client runs with
 * `maxRetries: 0`) so the policy is written down here and tests can drive it
 * with an injected sleep.
 */
export interface RetryPolicy {
  /** Retries after the first attempt; a request is tried at most `maxRetries + 1` times. */
  readonly maxRetries: number;
  /** The ceiling of the first backoff; it doubles on every retry. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A `retry-after` longer than this is cut down to it: a person is waiting. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * The wait before retry number `retry` (1 for the first retry). A delay the
 * server advertised wins, capped; otherwise exponential backoff with jitter
 * in `[ceiling / 2, ceiling]`, so workers that failed together do not all
 * come back in the same millisecond.
 */
export function retryDelayMs(
  retry: number,
  headers: Headers | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
  now: () => number = Date.now,
): number {
  const advertised = advertisedDelayMs(headers, now);
  if (advertised !== undefined) return Math.min(advertised, policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

/** `retry-after-ms` (OpenAI's, in milliseconds), else `retry-after` in seconds or as an HTTP date. */
export function advertisedDelayMs(
  headers: Headers | undefined,
  now: () => number = Date.now,
): number | undefined {
  const millis = numberOf(headers?.get("retry-after-ms"));
  if (millis !== undefined) return millis;
  const header = headers?.get("retry-after")?.trim();
  if (!header) return undefined;
  const seconds = numberOf(header);
  if (seconds !== undefined) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/**
 * `x-should-retry`, which OpenAI sends to overrule the status-based guess;
 * `undefined` when absent.
 */
export function serverSaysRetry(headers: Headers | undefined): boolean | undefined {
  const header = headers?.get("x-should-retry");
  return header === "true" ? true : header === "false" ? false : undefined;
}

function numberOf(text: string | null | undefined): number | undefined {
  if (!text?.trim()) return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}
