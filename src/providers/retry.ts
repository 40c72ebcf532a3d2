import type { LoggerPort } from "../core/logger.ts";
import { noteRetry } from "../observability/tracing-model.ts";
import type { CallBudget } from "./deadlines.ts";
import { abortedError, type Failure, keepingPartial } from "./failure.ts";
import type { StreamProgress } from "./reply-stream.ts";
import { type RetryPolicy, retryDelayMs } from "./retry-policy.ts";

/**
 * The retry loop's two steps that every provider takes alike: deciding
 * whether a failed attempt is tried again (and after how long), and waiting
 * that long without outliving a cancelled turn. When to retry is
 * retry-policy.ts; what a failure is, each provider's errors file.
 */

/** What the retry decision needs to know about the provider and the call. */
export interface RetryScene {
  readonly logger: LoggerPort;
  readonly policy: RetryPolicy;
  /** The base URL as logs show it. */
  readonly where: string;
  readonly redact: (text: string) => string;
  readonly budget: CallBudget;
}

/** How long to wait before try number `tries + 1` after this failure; throws the failure when there is none. */
export function retryWait(
  failure: Failure,
  tries: number,
  progress: StreamProgress,
  scene: RetryScene,
): number {
  const { logger, where, policy, budget } = scene;
  if (failure.unexpected !== undefined) {
    logger.warn("Reading the model's reply failed unexpectedly; the person was told.", {
      error: scene.redact(String((failure.unexpected as Error)?.stack ?? failure.unexpected)),
      baseURL: where,
    });
  }
  // Retrying after text was shown would show a second, different reply.
  if (!failure.retryable || progress.textShown || tries > policy.maxRetries) {
    throw keepingPartial(failure.error, progress);
  }
  const waitMs = retryDelayMs(tries, failure.headers, policy);
  const { kind, status } = failure.error;
  // A retry that could not finish within the call's budget only makes the person wait longer.
  if (waitMs >= budget.remainingMs()) {
    logger.warn(
      `The model provider failed (${status ?? kind}); not retrying: the wait of ${waitMs} ms would pass this call's budget of ${budget.totalMs} ms.`,
      { kind, status, attempt: tries, delayMs: waitMs, baseURL: where },
    );
    throw keepingPartial(failure.error, progress);
  }
  logger.warn(
    `The model provider failed (${status ?? kind}); retrying in ${waitMs} ms, attempt ${tries + 1} of ${policy.maxRetries + 1}.`,
    { kind, status, attempt: tries + 1, delayMs: waitMs, baseURL: where },
  );
  noteRetry(tries + 1, kind, waitMs);
  return waitMs;
}

/** Waits, but gives up as soon as the request is cancelled, whatever `sleep` does. */
export async function pause(
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
