import type { Redis } from "ioredis";
import { RepeatedWarnings } from "../../observability/repeated-warnings.ts";
import {
  RedisClusterModeError,
  RedisClusterStateError,
  RedisUnavailableError,
} from "../../store/redis/redis-errors.ts";
import type { RedisFactory } from "../../store/redis/redis-factory.ts";
import { describeTopology, maskRedisUrl } from "../../store/redis/redis-topology.ts";
import { checkRedis, diagnoseClusterSeeds, type RedisCheck } from "./redis-check.ts";
import { withTimeout } from "./redis-probe.ts";

/** Where Redis is looked for when no URL is given. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

/** What connecting needs from a logger; a pino logger fits. */
export interface RedisLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * Connects the check's client and runs the startup check; on failure
 * disconnects and throws an error that names what was tried.
 */
export async function openChecked(
  factory: RedisFactory,
  timeoutMs: number,
  setting: string | undefined,
): Promise<{ redis: Redis; check: RedisCheck }> {
  const topology = factory.topology;
  const redis = factory.create("check", { lazyConnect: true });
  let lastError: Error | undefined;
  const remember = (error: Error) => {
    lastError = error;
  };
  redis.on("error", remember);
  const where =
    topology.kind === "single"
      ? maskRedisUrl(topology.url ?? LOCAL_REDIS_URL)
      : describeTopology(topology);
  const variable =
    topology.kind === "cluster"
      ? "REDIS_CLUSTER_NODES"
      : topology.kind === "sentinel"
        ? "REDIS_SENTINELS"
        : "REDIS_URL";
  try {
    try {
      await withTimeout(
        redis.connect(),
        timeoutMs,
        () => new Error(`no answer within ${timeoutMs} ms`),
      );
    } catch (error) {
      const cause = (lastError ?? (error as Error)).message;
      const why =
        topology.kind === "cluster" ? await diagnoseClusterSeeds(topology, timeoutMs) : undefined;
      throw new RedisUnavailableError(where, why ?? cause, variable);
    }
    const check = await checkRedis(redis, topology, { timeoutMs, setting }).catch(
      (error: unknown) => {
        if (error instanceof RedisClusterModeError || error instanceof RedisClusterStateError) {
          throw error;
        }
        throw new RedisUnavailableError(where, (lastError ?? (error as Error)).message, variable);
      },
    );
    return { redis, check };
  } catch (error) {
    redis.disconnect();
    throw error;
  } finally {
    redis.off("error", remember);
  }
}

export function watchErrors(redis: Redis, where: string, logger: RedisLogger): void {
  // Without a listener ioredis prints every reconnect failure to stderr itself; with
  // one, an outage is a line per retry, so repeats are logged with backoff and a count.
  const warnings = new RepeatedWarnings({
    warn: (message, fields) => logger.warn(fields ?? {}, message),
  });
  redis.on("error", (error: Error) => {
    warnings.warn(
      "Redis connection error; retrying",
      { err: error, redis: where },
      error.message.replace(/\d+/g, "#"),
    );
  });
}

/**
 * QUIT, or a hard disconnect when the server is already gone. Resolves once
 * the socket is closed, not when the server answers: a process whose bot
 * stopped (or failed to start) can then end by itself.
 */
export async function quit(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  const ended = new Promise<void>((resolve) => redis.once("end", () => resolve()));
  try {
    await withTimeout(
      redis.quit().then(() => ended),
      2_000,
      () => new Error("QUIT timed out"),
    );
  } catch {
    redis.disconnect();
  }
}
