/**
 * A real redis-server of a test's own, on a free port, that can be told to
 * refuse writes the way a full production Redis does: `maxmemory` below
 * what it uses, with the `noeviction` policy, so every write answers
 * "OOM command not allowed when used memory > 'maxmemory'" while reads go
 * on. Not a fake of Redis: the Redis the Telegram tests break on purpose.
 *
 * @example
 * const redis = await startRefusingRedis();
 * const pipe = await startPipeline({ redisUrl: redis.url });
 * await redis.refuseWrites();
 * // ... messages arrive and are held ...
 * await redis.acceptWrites();
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { spawnRedis } from "../../src/ops/redis/redis-spawn.ts";

export interface RefusingRedis {
  readonly url: string;
  /** From now on every write is refused with OOM (reads still answer). */
  refuseWrites(): Promise<void>;
  /** Writes are accepted again. */
  acceptWrites(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRefusingRedis(): Promise<RefusingRedis> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchyard-refusing-redis-"));
  const server = await spawnRedis({ dataDir });
  const admin = new Redis(server.url, { maxRetriesPerRequest: 3 });
  await admin.config("SET", "maxmemory-policy", "noeviction");
  return {
    url: server.url,
    refuseWrites: async () => {
      await admin.config("SET", "maxmemory", "1");
    },
    acceptWrites: async () => {
      await admin.config("SET", "maxmemory", "0");
    },
    stop: async () => {
      admin.disconnect();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
