import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeEach } from "vitest";

/** The Redis the integration tests use: REDIS_URL, else the project machines' local one. */
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export function connectRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
}

/** A prefix no other test (or run) uses, so tests can share one Redis. */
export function uniquePrefix(label = "test"): string {
  return `sytest-${label}-${randomBytes(6).toString("hex")}`;
}

/** Every key under `<prefix>:`, found with SCAN (never KEYS). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${escapeGlob(prefix)}:*`, "COUNT", 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return found.sort();
}

export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  const keys = await keysUnder(redis, prefix);
  let deleted = 0;
  for (let i = 0; i < keys.length; i += 500)
    deleted += await redis.unlink(...keys.slice(i, i + 500));
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
