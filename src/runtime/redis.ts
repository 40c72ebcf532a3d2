import { Redis, type RedisOptions } from "ioredis";
import { RepeatedWarnings } from "../observability/repeated-warnings.ts";
import { registerSecret } from "../observability/secrets.ts";
import { RedisNotInstalledError, RedisUnavailableError } from "./redis-errors.ts";
import { pingOnce, withTimeout } from "./redis-probe.ts";
import { spawnRedis } from "./redis-spawn.ts";

export {
  INSTALL_HINT,
  RedisNotInstalledError,
  RedisSpawnError,
  RedisUnavailableError,
} from "./redis-errors.ts";
export { type SpawnedRedis, type SpawnRedisOptions, spawnRedis } from "./redis-spawn.ts";

/** Where Redis is looked for when no URL is given. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

/** What connecting needs from a logger; a pino logger fits. */
export interface RedisLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ConnectRedisOptions {
  /** An explicit Redis; by default `REDIS_URL`. When set, it must answer: nothing is started. */
  readonly url?: string;
  /** Where a Redis started by Switchyard keeps its data, e.g. `./.switchyard`. */
  readonly dataDir: string;
  readonly logger: RedisLogger;
  /** Read for `REDIS_URL`; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long an explicit URL may take to answer PING. */
  readonly timeoutMs?: number;
  /** Where a running local Redis is looked for before one is started; 127.0.0.1:6379 by default. */
  readonly localUrl?: string;
  /** How long that probe waits before deciding nothing is there. */
  readonly probeTimeoutMs?: number;
  /** The executable started when nothing answers; `redis-server` by default. */
  readonly binary?: string;
}

export interface RedisConnection {
  /** The URL connected to (it may hold a password: log `maskRedisUrl(url)`). */
  readonly url: string;
  readonly redis: Redis;
  /** Whether Switchyard started this Redis itself. */
  readonly spawned: boolean;
  /** Quits the client, then shuts down the Redis we started, if we did. */
  stop(): Promise<void>;
}

/**
 * Hides the password of a Redis URL, for logs and error messages.
 *
 * @example
 * maskRedisUrl("redis://:hunter2@cache:6379/0") // "redis://:***@cache:6379/0"
 */
export function maskRedisUrl(url: string): string {
  return url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i,
    (_, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(":");
      return colon === -1 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
    },
  );
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

/** Connects and PINGs; on failure disconnects and throws an error naming the masked URL. */
async function openVerified(url: string, timeoutMs: number): Promise<Redis> {
  const redis = createRedisConnection(url, { lazyConnect: true });
  let lastError: Error | undefined;
  const remember = (error: Error) => {
    lastError = error;
  };
  redis.on("error", remember);
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      timeoutMs,
      () => new Error(`no answer within ${timeoutMs} ms`),
    );
    return redis;
  } catch (error) {
    redis.disconnect();
    throw new RedisUnavailableError(maskRedisUrl(url), (lastError ?? (error as Error)).message);
  } finally {
    redis.off("error", remember);
  }
}

function watch(redis: Redis, url: string, logger: RedisLogger): void {
  // Without a listener ioredis prints every reconnect failure to stderr itself; with
  // one, an outage is a line per retry, so repeats are logged with backoff and a count.
  const warnings = new RepeatedWarnings({
    warn: (message, fields) => logger.warn(fields ?? {}, message),
  });
  redis.on("error", (error: Error) => {
    warnings.warn(
      "Redis connection error; retrying",
      { err: error, redis: maskRedisUrl(url) },
      error.message.replace(/\d+/g, "#"),
    );
  });
}

/**
 * Gets the process a Redis, in order:
 * 1. `url` (or `REDIS_URL`) if set: it must answer, or this throws
 *    `RedisUnavailableError`;
 * 2. a Redis already answering at 127.0.0.1:6379;
 * 3. a `redis-server` started here with its data under `dataDir`, stopped by
 *    `stop()` or on exit; `RedisNotInstalledError` when there is none.
 *
 * @example
 * const { redis, stop } = await connectRedis({ dataDir: ".switchyard", logger });
 * process.once("SIGTERM", () => void stop());
 */
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisConnection> {
  const { logger } = options;
  const env = options.env ?? process.env;
  const explicit = options.url ?? (env.REDIS_URL?.trim() || undefined);
  const timeoutMs = options.timeoutMs ?? 5_000;

  if (explicit) {
    const redis = await openVerified(explicit, timeoutMs);
    watch(redis, explicit, logger);
    logger.info({ redis: maskRedisUrl(explicit) }, "connected to Redis");
    return { url: explicit, redis, spawned: false, stop: () => quit(redis) };
  }

  const local = options.localUrl ?? LOCAL_REDIS_URL;
  const probe = await pingOnce(local, options.probeTimeoutMs ?? 500);
  if (probe.ok) {
    const redis = await openVerified(local, timeoutMs);
    watch(redis, local, logger);
    logger.info({ redis: maskRedisUrl(local) }, "connected to the local Redis");
    return { url: local, redis, spawned: false, stop: () => quit(redis) };
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
  let redis: Redis;
  try {
    redis = await openVerified(server.url, timeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  watch(redis, server.url, logger);
  logger.info(
    { redis: server.url, pid: server.pid, dataDir: server.dataDir },
    "started redis-server",
  );
  return {
    url: server.url,
    redis,
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
