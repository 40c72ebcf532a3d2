import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.ts";
import {
  connectRedis,
  RedisClusterModeError,
  type RedisConnection,
  RedisTopologyError,
  RedisUnavailableError,
  type SpawnedRedis,
  spawnRedis,
} from "../../src/ops/redis/redis.ts";

/**
 * The startup check against what an operator gets wrong: a single-node URL
 * at a cluster node, cluster settings at a plain Redis, a cluster whose
 * slots are not covered. Each needs one redis-server, started here.
 */

function quietLogger() {
  const lines: string[] = [];
  const logger = createLogger({ env: {}, destination: { write: (line) => void lines.push(line) } });
  return { logger, lines };
}

let dir: string;
let clusterNode: SpawnedRedis;
let plain: SpawnedRedis;
let connection: RedisConnection | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchyard-topology-"));
  // A node with cluster mode on and no slots: what one node of a cluster looks like to PING.
  clusterNode = await spawnRedis({
    dataDir: join(dir, "cluster-node"),
    persist: false,
    args: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"],
  });
  plain = await spawnRedis({ dataDir: join(dir, "plain"), persist: false });
}, 30_000);

afterEach(async () => {
  await connection?.stop();
  connection = undefined;
});

afterAll(async () => {
  await Promise.all([clusterNode?.stop(), plain?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

describe("the startup check", () => {
  it("refuses a REDIS_URL that reaches a node of a cluster, naming REDIS_CLUSTER_NODES", async () => {
    const { logger } = quietLogger();
    const attempt = connectRedis({
      dataDir: dir,
      logger,
      env: { REDIS_URL: clusterNode.url },
      timeoutMs: 3_000,
    });
    await expect(attempt).rejects.toBeInstanceOf(RedisClusterModeError);
    await expect(attempt).rejects.toThrow(
      `${clusterNode.url} is a node of a Redis Cluster, but REDIS_URL configures a single Redis: every key stored on another node would fail with MOVED. Set REDIS_CLUSTER_NODES=host:port,host:port (or cluster: [host:port, ...] under redis: in the config file) to the cluster's nodes, and unset REDIS_URL.`,
    );
  });

  it("names redis.url when the config file chose the single node", async () => {
    const { logger } = quietLogger();
    const attempt = connectRedis({
      dataDir: dir,
      logger,
      env: {},
      config: { url: clusterNode.url, tls: false },
      timeoutMs: 3_000,
    });
    await expect(attempt).rejects.toThrow(
      /but redis\.url configures a single Redis.*unset redis\.url\.$/,
    );
  });

  it("says a cluster node with uncovered slots is not a usable cluster, and how to fix it", async () => {
    const { logger } = quietLogger();
    const attempt = connectRedis({
      dataDir: dir,
      logger,
      env: { REDIS_CLUSTER_NODES: `127.0.0.1:${clusterNode.port}` },
      timeoutMs: 2_000,
    });
    await expect(attempt).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(attempt).rejects.toThrow(
      new RegExp(
        `^No usable Redis at Redis Cluster via 127\\.0\\.0\\.1:${clusterNode.port}: the cluster node 127\\.0\\.0\\.1:${clusterNode.port} reports cluster_state:fail with 0 of 16384 slots assigned\\. Create or fix the cluster .*Check that Redis is running there and that REDIS_CLUSTER_NODES \\(or the redis: section of the config file\\) is right\\.$`,
      ),
    );
  });

  it("says REDIS_CLUSTER_NODES names a Redis without cluster mode, and offers REDIS_URL", async () => {
    const { logger } = quietLogger();
    const attempt = connectRedis({
      dataDir: dir,
      logger,
      env: { REDIS_CLUSTER_NODES: `127.0.0.1:${plain.port}` },
      timeoutMs: 2_000,
    });
    await expect(attempt).rejects.toThrow(
      `127.0.0.1:${plain.port} is a Redis without cluster mode. For a single Redis set REDIS_URL=redis://127.0.0.1:${plain.port} instead of REDIS_CLUSTER_NODES`,
    );
  });

  it("connects a plain REDIS_URL and reports a single topology with one master", async () => {
    const { logger, lines } = quietLogger();
    connection = await connectRedis({ dataDir: dir, logger, env: { REDIS_URL: plain.url } });
    expect(connection.check).toEqual({
      topology: "single",
      masters: 1,
      summary: `Redis at ${plain.url}`,
    });
    expect(lines.join("\n")).toContain('"topology":"single"');
  });

  it("refuses two topologies at once before connecting anywhere", async () => {
    const { logger } = quietLogger();
    await expect(
      connectRedis({
        dataDir: dir,
        logger,
        env: { REDIS_URL: plain.url, REDIS_CLUSTER_NODES: `127.0.0.1:${plain.port}` },
      }),
    ).rejects.toBeInstanceOf(RedisTopologyError);
  });
});
