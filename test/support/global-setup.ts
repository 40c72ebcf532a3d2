import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnRedis } from "../../src/runtime/redis.ts";
import { pingOnce } from "../../src/runtime/redis-probe.ts";

/**
 * The tests need a real Redis. Use REDIS_URL, else the one at 127.0.0.1:6379;
 * if neither answers, start a throwaway redis-server for this run, so
 * `npm test` works on a machine where Redis is installed but not running.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if ((await pingOnce(url, 1_000)).ok) {
    process.env.REDIS_URL = url;
    return async () => {};
  }
  if (process.env.REDIS_URL) {
    throw new Error(
      `REDIS_URL=${process.env.REDIS_URL} does not answer PING. Start that Redis or unset REDIS_URL.`,
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-test-redis-"));
  const redis = await spawnRedis({ dataDir });
  process.env.REDIS_URL = redis.url;
  return async () => {
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
