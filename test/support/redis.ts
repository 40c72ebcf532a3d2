import { randomBytes } from "node:crypto";
import type { Cluster, Redis, RedisOptions } from "ioredis";
import { afterAll, afterEach, beforeEach } from "vitest";
import { RedisFactory } from "../../src/store/redis/redis-factory.ts";
import { topologyFrom } from "../../src/store/redis/redis-topology.ts";

/**
 * Which Redis the tests run against. `REDIS_TOPOLOGY=cluster` runs the same
 * tests against a local Redis Cluster that the global setup starts (and
 * names in `REDIS_CLUSTER_NODES`); otherwise REDIS_URL, else the project
 * machines' local Redis. Tests build every connection through
 * {@link testRedisFactory}, so they follow.
 */
export const TOPOLOGY: "single" | "cluster" =
  process.env.REDIS_TOPOLOGY === "cluster" ? "cluster" : "single";

/**
 * A single Redis's URL. On a cluster, the first node's: a test that still
 * connects to a URL directly then fails with MOVED instead of silently using
 * another Redis.
 */
export const REDIS_URL =
  TOPOLOGY === "cluster"
    ? `redis://${(process.env.REDIS_CLUSTER_NODES ?? "127.0.0.1:6379").split(",")[0]}`
    : (process.env.REDIS_URL ?? "redis://127.0.0.1:6379");

let factory: RedisFactory | undefined;

/** Builds connections for the topology under test, as `switchyard start` would. */
export function testRedisFactory(): RedisFactory {
  if (TOPOLOGY === "cluster" && !process.env.REDIS_CLUSTER_NODES) {
    throw new Error(
      "REDIS_TOPOLOGY=cluster but REDIS_CLUSTER_NODES is not set: run through vitest.cluster.config.ts, whose global setup starts the cluster.",
    );
  }
  factory ??=
    TOPOLOGY === "cluster"
      ? new RedisFactory(
          topologyFrom({ REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES as string }),
        )
      : RedisFactory.single(REDIS_URL);
  return factory;
}

/**
 * The environment a child `switchyard` process needs to reach the same
 * Redis; spread it over a copy of `process.env` without REDIS_* variables.
 */
export function redisEnv(): Record<string, string> {
  return TOPOLOGY === "cluster"
    ? { REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES as string }
    : { REDIS_URL };
}

/** `process.env` without the variables that choose a Redis, for a child to get {@link redisEnv} instead. */
export function envWithoutRedis(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    "REDIS_URL",
    "REDIS_CLUSTER_NODES",
    "REDIS_SENTINELS",
    "REDIS_SENTINEL_NAME",
  ]) {
    delete env[name];
  }
  return env;
}

/** A new connection; by default one that gives up on a command after 3 retries, as tests want. */
export function connectRedis(options: RedisOptions = { maxRetriesPerRequest: 3 }): Redis {
  return testRedisFactory().create("reader", options);
}

/** A prefix no other test (or run) uses, so tests can share one Redis. */
export function uniquePrefix(label = "test"): string {
  return `sytest-${label}-${randomBytes(6).toString("hex")}`;
}

/** The clients SCAN must ask: every master of a cluster, else the one node. */
function scanTargets(redis: Redis): Redis[] {
  return redis.isCluster ? (redis as unknown as Cluster).nodes("master") : [redis];
}

/** Every key under `<prefix>:`, found with SCAN (never KEYS), on every master of a cluster. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of scanTargets(redis)) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(
        cursor,
        "MATCH",
        `${escapeGlob(prefix)}:*`,
        "COUNT",
        500,
      );
      found.push(...keys);
      cursor = next;
    } while (cursor !== "0");
  }
  return found.sort();
}

export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  const keys = await keysUnder(redis, prefix);
  if (!redis.isCluster) {
    let deleted = 0;
    for (let i = 0; i < keys.length; i += 500)
      deleted += await redis.unlink(...keys.slice(i, i + 500));
    return deleted;
  }
  // A multi-key UNLINK must stay in one slot on a cluster: one key per command.
  let deleted = 0;
  for (let i = 0; i < keys.length; i += 200) {
    const batch = await Promise.all(keys.slice(i, i + 200).map((key) => redis.unlink(key)));
    deleted += batch.reduce((sum, n) => sum + n, 0);
  }
  return deleted;
}

export interface TestRedis {
  /** One connection for the whole file. */
  readonly redis: Redis;
  /** A fresh prefix for each test; its keys are deleted after the test. */
  readonly prefix: string;
}

/**
 * Registers the hooks for a file of Redis tests: one connection, a unique
 * prefix per test, and SCAN-and-delete of that prefix after each test.
 *
 * @example
 * const db = useTestRedis("intent");
 * it("...", async () => { const store = createStore(db.redis, { prefix: db.prefix }); });
 */
export function useTestRedis(label?: string): TestRedis {
  let redis: Redis | undefined;
  let prefix = "";
  beforeEach(() => {
    redis ??= connectRedis();
    prefix = uniquePrefix(label);
  });
  afterEach(async () => {
    if (redis) await deleteKeysUnder(redis, prefix);
  });
  afterAll(async () => {
    await redis?.quit();
  });
  return {
    get redis() {
      if (!redis)
        throw new Error("useTestRedis: the connection opens in beforeEach; use it inside a test");
      return redis;
    },
    get prefix() {
      return prefix;
    },
  };
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}
