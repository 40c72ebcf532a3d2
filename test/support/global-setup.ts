import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnRedis } from "../../src/ops/redis/redis.ts";
import { pingOnce } from "../../src/ops/redis/redis-probe.ts";
import { buildIsFresh } from "./build-freshness.ts";
import { startLocalCluster } from "./redis-cluster.ts";

/**
 * The tests need a real Redis. Use REDIS_URL, else the one at 127.0.0.1:6379;
 * if neither answers, start a throwaway redis-server for this run, so
 * `npm test` works on a machine where Redis is installed but not running.
 *
 * With REDIS_TOPOLOGY=cluster, a throwaway 3-master Redis Cluster is started
 * instead and named in REDIS_CLUSTER_NODES (REDIS_URL is unset, so nothing
 * reaches a single Redis by accident); it is stopped after the run.
 */
export default async function setup(): Promise<() => Promise<void>> {
  runBuiltWhenFresh();
  if (process.env.REDIS_TOPOLOGY === "cluster") {
    const cluster = await startLocalCluster();
    delete process.env.REDIS_URL;
    process.env.REDIS_CLUSTER_NODES = cluster.nodes.join(",");
    return () => cluster.stop();
  }
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

/**
 * The `switchyard` processes the tests start run dist/ when it is newer than
 * every source (CI's `npm ci` builds it through `prepare`), and the source
 * through tsx otherwise: compiling the source at every start was over half
 * of those processes' CPU (a crash test file: 78 s of CPU, 37 s from the build).
 * `SWITCHYARD_FROM_DIST=0` keeps the source; a stale build is never run.
 */
function runBuiltWhenFresh(): void {
  if (process.env.SWITCHYARD_FROM_DIST !== undefined) return;
  const fresh = buildIsFresh();
  process.env.SWITCHYARD_FROM_DIST = fresh ? "1" : "0";
  if (!fresh) {
    console.log(
      "switchyard processes run the source through tsx: dist/ is missing or older than src/ (`npm run build` makes the suite faster).",
    );
  }
}
