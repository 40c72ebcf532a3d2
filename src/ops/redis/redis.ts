import type { Redis, RedisOptions } from "ioredis";
import type { RedisConfig } from "../../core/config/index.ts";
import { registerSecret } from "../../observability/secrets.ts";
import { ioredis } from "../../store/redis/ioredis.ts";
import { RedisNotInstalledError, RedisUnavailableError } from "../../store/redis/redis-errors.ts";
import { RedisFactory } from "../../store/redis/redis-factory.ts";
import {
  maskRedisUrl,
  type RedisTopology,
  type SingleTopology,
  topologyFrom,
} from "../../store/redis/redis-topology.ts";
import type { RedisCheck } from "./redis-check.ts";
import { LOCAL_REDIS_URL, openChecked, quit, type RedisLogger, watchErrors } from "./redis-open.ts";
import { pingOnce } from "./redis-probe.ts";
import { type SpawnedRedis, spawnRedis } from "./redis-spawn.ts";

export {
  INSTALL_HINT,
  RedisClusterModeError,
  RedisClusterStateError,
  RedisNotInstalledError,
  RedisSpawnError,
  RedisTopologyError,
  RedisUnavailableError,
} from "../../store/redis/redis-errors.ts";
export { type ConnectionRole, RedisFactory } from "../../store/redis/redis-factory.ts";
export {
  type ClusterTopology,
  describeTopology,
  maskRedisUrl,
  type RedisTopology,
  type SentinelTopology,
  type SingleTopology,
  topologyFrom,
} from "../../store/redis/redis-topology.ts";
export type { RedisCheck } from "./redis-check.ts";
export { LOCAL_REDIS_URL, type RedisLogger } from "./redis-open.ts";
export { type SpawnedRedis, type SpawnRedisOptions, spawnRedis } from "./redis-spawn.ts";

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
  return new (ioredis().Redis)(url, { maxRetriesPerRequest: null, ...options });
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
  const env = options.env ?? process.env;
  const topology: RedisTopology = options.url
    ? { kind: "single", url: options.url }
    : (options.topology ?? topologyFrom(env, options.config));
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (topology.kind !== "single" || topology.url) {
    const setting = options.url ? undefined : env.REDIS_URL?.trim() ? "REDIS_URL" : "redis.url";
    return connectConfigured(topology, options.logger, timeoutMs, setting);
  }
  return connectLocal(
    { ...topology, url: options.localUrl ?? LOCAL_REDIS_URL },
    options,
    timeoutMs,
  );
}

/** The Redis the options, environment or config name: it must answer, and be what it is said to be. */
async function connectConfigured(
  topology: RedisTopology,
  logger: RedisLogger,
  timeoutMs: number,
  setting: string | undefined,
): Promise<RedisConnection> {
  const factory = new RedisFactory(topology);
  const { redis, check } = await openChecked(factory, timeoutMs, setting);
  const where = topology.kind === "single" ? maskRedisUrl(topology.url ?? "") : check.summary;
  watchErrors(redis, where, logger);
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

/** The Redis already answering at the local address, else one started here. */
async function connectLocal(
  topology: SingleTopology & { readonly url: string },
  options: ConnectRedisOptions,
  timeoutMs: number,
): Promise<RedisConnection> {
  const local = topology.url;
  const probe = await pingOnce(local, options.probeTimeoutMs ?? 500);
  if (probe.ok) {
    const factory = new RedisFactory(topology);
    const { redis, check } = await openChecked(factory, timeoutMs, undefined);
    watchErrors(redis, local, options.logger);
    options.logger.info({ redis: maskRedisUrl(local) }, "connected to the local Redis");
    return { url: local, redis, factory, check, spawned: false, stop: () => quit(redis) };
  }
  if (probe.answered) {
    // Something is there but refuses us (a password, most likely); starting a second one would hide that.
    throw new RedisUnavailableError(
      maskRedisUrl(local),
      `${probe.reason} (if it needs a password, set REDIS_URL=redis://:PASSWORD@host:port)`,
    );
  }
  return startLocal(hostPort(local), options, timeoutMs);
}

/** A redis-server of our own, with its data under `dataDir`, stopped with the connection. */
async function startLocal(
  probed: string,
  options: ConnectRedisOptions,
  timeoutMs: number,
): Promise<RedisConnection> {
  const { logger } = options;
  logger.info(
    { dataDir: options.dataDir },
    `No Redis answered at ${probed}; starting redis-server`,
  );
  let server: SpawnedRedis;
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
  watchErrors(redis, server.url, logger);
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
