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
  /** A single Redis's URL; absent on a Cluster, which `env` names instead. */
  readonly url?: string;
  /** What the bot reads to reach it (`REDIS_CLUSTER_NODES` for a Cluster). */
  readonly env: Readonly<Record<string, string>>;
  /** Every key the bot writes starts with it. */
  readonly prefix: string;
  /** Deletes the prefix's keys (a shared Redis), or stops the throwaway server. */
  stop(): Promise<void>;
}

/** No `REDIS_URL`, and no `redis-server` to start either; the message says what to install or set. */
export class TestRedisError extends Error {
  override readonly name = "TestRedisError";
}

/** A Redis Cluster a test bot may use: its nodes as `host:port`. */
export interface TestRedisCluster {
  readonly cluster: readonly string[];
}

export async function startTestRedis(
  where: string | TestRedisCluster | undefined = process.env.REDIS_URL,
): Promise<TestRedis> {
  const prefix = `sy-test-${randomBytes(4).toString("hex")}`;
  if (typeof where === "object") {
    const nodes = [...where.cluster];
    return {
      env: { REDIS_CLUSTER_NODES: nodes.join(",") },
      prefix,
      stop: () => deleteClusterKeysUnder(nodes, prefix),
    };
  }
  const url = where;
  if (url) return { url, env: {}, prefix, stop: () => deleteKeysUnder(url, prefix) };
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-test-redis-"));
  try {
    const server = await spawnRedis({ dataDir, persist: false });
    return {
      url: server.url,
      env: {},
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

/** Deletes every key under `prefix` on each master of a Cluster. */
async function deleteClusterKeysUnder(nodes: readonly string[], prefix: string): Promise<void> {
  const { Cluster } = ioredis();
  const cluster = new Cluster(
    nodes.map((node) => {
      const [host, port] = node.split(":");
      return { host: host as string, port: Number(port) };
    }),
    { lazyConnect: true, redisOptions: { maxRetriesPerRequest: 2 } },
  );
  try {
    await cluster.connect();
    for (const master of cluster.nodes("master")) {
      let cursor = "0";
      do {
        const [next, keys] = await master.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
        cursor = next;
        // One key at a time: a Cluster refuses a multi-key command across slots.
        for (const key of keys) await master.unlink(key);
      } while (cursor !== "0");
    }
  } finally {
    cluster.disconnect();
  }
}
