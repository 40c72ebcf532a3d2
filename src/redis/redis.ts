import { Redis, type RedisOptions } from "ioredis";
import type { RedisConfig } from "../core/config/index.ts";
import { RepeatedWarnings } from "../observability/repeated-warnings.ts";
import { registerSecret } from "../observability/secrets.ts";
import { checkRedis, diagnoseClusterSeeds, type RedisCheck } from "./redis-check.ts";
import {
  RedisClusterModeError,
  RedisClusterStateError,
  RedisNotInstalledError,
  RedisUnavailableError,
} from "./redis-errors.ts";
import { RedisFactory } from "./redis-factory.ts";
import { pingOnce, withTimeout } from "./redis-probe.ts";
import { spawnRedis } from "./redis-spawn.ts";
import {
  describeTopology,
  maskRedisUrl,
  type RedisTopology,
  topologyFrom,
} from "./redis-topology.ts";

export type { RedisCheck } from "./redis-check.ts";
export {
  INSTALL_HINT,
  RedisClusterModeError,
  RedisClusterStateError,
  RedisNotInstalledError,
  RedisSpawnError,
  RedisTopologyError,
  RedisUnavailableError,
} from "./redis-errors.ts";
export { type ConnectionRole, RedisFactory } from "./redis-factory.ts";
export { type SpawnedRedis, type SpawnRedisOptions, spawnRedis } from "./redis-spawn.ts";
export {
  type ClusterTopology,
  describeTopology,
  maskRedisUrl,
  type RedisTopology,
  type SentinelTopology,
  type SingleTopology,
  topologyFrom,
} from "./redis-topology.ts";

/** Where Redis is looked for when no URL is given. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

/** What connecting needs from a logger; a pino logger fits. */
export interface RedisLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ConnectRedisOptions {
  /** An explicit single Redis; it must answer: nothing is started. Wins over `topology` and the environment. */
  readonly url?: string;
  /** An explicit topology; by default read from `env` and `config` (see `topologyFrom`). */
  readonly topology?: RedisTopology;
  /** The config file's `redis:` section, below the environment. */
  readonly config?: RedisConfig;
  /** Where a Redis started by Switchyard keeps its data, e.g. `./.switchyard`. */
  readonly dataDir: string;
  readonly logger: RedisLogger;
  /** Read for `REDIS_URL`, `REDIS_CLUSTER_NODES`, ...; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long a configured Redis may take to answer the startup check. */
  readonly timeoutMs?: number;
  /** Where a running local Redis is looked for before one is started; 127.0.0.1:6379 by default. */
  readonly localUrl?: string;
  /** How long that probe waits before deciding nothing is there. */
  readonly probeTimeoutMs?: number;
  /** The executable started when nothing answers; `redis-server` by default. */
  readonly binary?: string;
}

export interface RedisConnection {
  /** A single Redis's URL (it may hold a password: log `maskRedisUrl(url)`); absent on a cluster or Sentinel. */
  readonly url: string | undefined;
  /** The startup check's connection, kept open: its status is the process's readiness. */
  readonly redis: Redis;
  /** Builds every other connection of the process, for the same topology. */
  readonly factory: RedisFactory;
  /** What the startup check found: the topology and the number of masters. */
  readonly check: RedisCheck;
  /** Whether Switchyard started this Redis itself. */
  readonly spawned: boolean;
  /** Quits the client, then shuts down the Redis we started, if we did. */
  stop(): Promise<void>;
}

function hostPort(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return maskRedisUrl(url);
  }
}

function passwordOf(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A new client for `url`, configured the way BullMQ requires
 * (`maxRetriesPerRequest: null`: commands wait out a reconnect instead of
 * failing). BullMQ workers, queues and events each want their own.
 */
export function createRedisConnection(url: string, options: RedisOptions = {}): Redis {
  registerSecret(passwordOf(url));
  return new Redis(url, { maxRetriesPerRequest: null, ...options });
}

/**
 * Connects the check's client and runs the startup check; on failure
 * disconnects and throws an error that names what was tried.
 */
async function openChecked(
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

function watch(redis: Redis, where: string, logger: RedisLogger): void {
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
 * Gets the process its Redis, checked (see `checkRedis`), in order:
 * 1. `url`, or the topology of the environment and the config's `redis:`
 *    section (`REDIS_URL`, `REDIS_CLUSTER_NODES`, `REDIS_SENTINELS`, ...) when
 *    one is set: it must answer and be what it is said to be, or this throws
 *    `RedisUnavailableError`, `RedisClusterModeError` or
 *    `RedisClusterStateError`;
 * 2. a Redis already answering at 127.0.0.1:6379;
 * 3. a `redis-server` started here with its data under `dataDir`, stopped by
 *    `stop()` or on exit; `RedisNotInstalledError` when there is none.
 *
 * @example
 * const { factory, check, stop } = await connectRedis({ dataDir: ".switchyard", logger });
 * const state = factory.create("state");
 * process.once("SIGTERM", () => void stop());
 */
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisConnection> {
  const { logger } = options;
  const env = options.env ?? process.env;
  const topology: RedisTopology = options.url
    ? { kind: "single", url: options.url }
    : (options.topology ?? topologyFrom(env, options.config));
  const timeoutMs = options.timeoutMs ?? 5_000;
  const setting = options.url ? undefined : env.REDIS_URL?.trim() ? "REDIS_URL" : "redis.url";

  if (topology.kind !== "single" || topology.url) {
    const factory = new RedisFactory(topology);
    const { redis, check } = await openChecked(factory, timeoutMs, setting);
    const where = topology.kind === "single" ? maskRedisUrl(topology.url ?? "") : check.summary;
    watch(redis, where, logger);
    logger.info(
      { redis: where, topology: check.topology, masters: check.masters },
      "connected to Redis",
    );
    return {
      url: topology.kind === "single" ? topology.url : undefined,
      redis,
      factory,
      check,
      spawned: false,
      stop: () => quit(redis),
    };
  }

  const local = options.localUrl ?? LOCAL_REDIS_URL;
  const localTopology: RedisTopology = { ...topology, url: local };
  const probe = await pingOnce(local, options.probeTimeoutMs ?? 500);
  if (probe.ok) {
    const factory = new RedisFactory(localTopology);
    const { redis, check } = await openChecked(factory, timeoutMs, undefined);
    watch(redis, local, logger);
    logger.info({ redis: maskRedisUrl(local) }, "connected to the local Redis");
    return { url: local, redis, factory, check, spawned: false, stop: () => quit(redis) };
  }
  if (probe.answered) {
    // Something is there but refuses us (a password, most likely); starting a second one would hide that.
    throw new RedisUnavailableError(
      maskRedisUrl(local),
      `${probe.reason} (if it needs a password, set REDIS_URL=redis://:PASSWORD@host:port)`,
    );
  }

  const probed = hostPort(local);
  logger.info(
    { dataDir: options.dataDir },
    `No Redis answered at ${probed}; starting redis-server`,
  );
  let server: Awaited<ReturnType<typeof spawnRedis>>;
  try {
    server = await spawnRedis({
      dataDir: options.dataDir,
      ...(options.binary ? { binary: options.binary } : {}),
    });
  } catch (error) {
    if (error instanceof RedisNotInstalledError) {
      throw new RedisNotInstalledError(error.binary, probed);
    }
    throw error;
  }
  const factory = new RedisFactory({ kind: "single", url: server.url });
  let opened: { redis: Redis; check: RedisCheck };
  try {
    opened = await openChecked(factory, timeoutMs, undefined);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const { redis, check } = opened;
  watch(redis, server.url, logger);
  logger.info(
    { redis: server.url, pid: server.pid, dataDir: server.dataDir },
    "started redis-server",
  );
  return {
    url: server.url,
    redis,
    factory,
    check,
    spawned: true,
    stop: async () => {
      await quit(redis);
      await server.stop();
    },
  };
}

/** QUIT, or a hard disconnect when the server is already gone. */
async function quit(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  try {
    await withTimeout(redis.quit(), 2_000, () => new Error("QUIT timed out"));
  } catch {
    redis.disconnect();
  }
}
