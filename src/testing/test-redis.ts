/**
 * The Redis a test bot keeps its state in: the one `REDIS_URL` names, under
 * a key prefix of its own that is deleted when the bot stops, or else a
 * throwaway `redis-server` on a free port in a temporary folder, started for
 * the bot and stopped with it (as `switchyard start` starts one when nothing
 * answers).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnRedis } from "../ops/redis/redis-spawn.ts";
import { ioredis } from "../store/redis/ioredis.ts";

export interface TestRedis {
  readonly url: string;
  /** Every key the bot writes starts with it. */
  readonly prefix: string;
  /** Deletes the prefix's keys (a shared Redis), or stops the throwaway server. */
  stop(): Promise<void>;
}

/** No `REDIS_URL`, and no `redis-server` to start either; the message says what to install or set. */
export class TestRedisError extends Error {
  override readonly name = "TestRedisError";
}

export async function startTestRedis(
  url: string | undefined = process.env.REDIS_URL,
): Promise<TestRedis> {
  const prefix = `sy-test-${randomBytes(4).toString("hex")}`;
  if (url) return { url, prefix, stop: () => deleteKeysUnder(url, prefix) };
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-test-redis-"));
  try {
    const server = await spawnRedis({ dataDir, persist: false });
    return {
      url: server.url,
      prefix,
      stop: async () => {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw new TestRedisError(
      `A test bot needs Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379) or install redis-server so the kit can start one. Starting redis-server failed: ${(error as Error).message}`,
    );
  }
}

/** Deletes every key under `prefix` on one Redis (SCAN, never KEYS). */
async function deleteKeysUnder(url: string, prefix: string): Promise<void> {
  const { Redis } = ioredis();
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
