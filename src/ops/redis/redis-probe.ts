import type { RedisOptions } from "ioredis";
import { ioredis } from "../../store/redis/ioredis.ts";

/**
 * Options for a throwaway client that asks once: it connects when asked,
 * never retries or queues, and gives up after `timeoutMs`.
 */
export function askOnceOptions(timeoutMs: number): RedisOptions {
  return {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
}

export type PingResult =
  | { readonly ok: true }
  /** `answered`: a Redis replied, but with an error (NOAUTH, LOADING...), so it is there but unusable as is. */
  | { readonly ok: false; readonly answered: boolean; readonly reason: string };

/**
 * Asks `url` for PING once, with a throwaway client that never retries, and
 * always disconnects it. Never throws.
 */
export async function pingOnce(url: string, timeoutMs: number): Promise<PingResult> {
  const client = new (ioredis().Redis)(url, askOnceOptions(timeoutMs));
  let lastError: Error | undefined;
  client.on("error", (error: Error) => {
    lastError = error;
  });
  try {
    await client.connect();
    await client.ping();
    return { ok: true };
  } catch (error) {
    const cause = lastError ?? (error as Error);
    return {
      ok: false,
      answered: error instanceof ioredis().ReplyError || cause instanceof ioredis().ReplyError,
      reason: cause.message,
    };
  } finally {
    client.disconnect();
  }
}

/** Rejects with `onTimeout()` if `promise` has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
