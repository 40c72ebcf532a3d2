import fc from "fast-check";
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUEUE } from "../../src/core/config/index.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { connectRedis, type RedisConnection } from "../../src/ops/redis/redis.ts";
import { queueSettings } from "../../src/runtime/queue-settings.ts";
import { keySlot } from "../../src/store/key-slot.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { TOPOLOGY } from "../support/redis.ts";
import { startWorkerProcess } from "../support/workers.ts";

/**
 * Against the suite's local 3-master cluster (REDIS_TOPOLOGY=cluster, see
 * vitest.cluster.config.ts): what the startup check reports, that the key
 * scheme's slots are the cluster's, and that the default shards land on
 * every master.
 */

let connection: RedisConnection;

beforeAll(async () => {
  if (TOPOLOGY !== "cluster" || !process.env.REDIS_CLUSTER_NODES) {
    throw new Error(
      "test/topology/cluster.test.ts needs the local cluster: run npx vitest run --config vitest.cluster.config.ts",
    );
  }
  const logger = createLogger({ env: {}, destination: { write: () => {} } });
  connection = await connectRedis({
    dataDir: ".switchyard",
    logger,
    env: { REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES },
  });
});

afterAll(async () => {
  await connection?.stop();
});

/** The master serving `slot`, as the cluster says (CLUSTER SLOTS). */
async function ownerOf(cluster: Cluster, slot: number): Promise<string> {
  const ranges = await cluster.cluster("SLOTS");
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  const master = range?.[2];
  if (!master) throw new Error(`no master serves slot ${slot}`);
  return `${master[0]}:${master[1]}`;
}

describe("on a 3-master Redis Cluster", () => {
  it("checks every master and reports the topology", () => {
    expect(connection.check.topology).toBe("cluster");
    expect(connection.check.masters).toBe(3);
    expect(connection.check.summary).toMatch(
      /^Redis Cluster via 127\.0\.0\.1:\d+, .*: 3 masters, all 16384 slots served$/,
    );
    expect(connection.factory.isCluster).toBe(true);
    expect(connection.url).toBeUndefined();
  });

  it("computes every key's slot as the cluster does, hash tags included", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 8 }),
        fc.string({ maxLength: 12 }),
        fc.constantFrom("{", "}", "{}", ""),
        async (before, inside, after, stray) => {
          const key = `${before}{${inside}}${stray}${after}`;
          expect(keySlot(key)).toBe(Number(await connection.redis.cluster("KEYSLOT", key)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("defaults to one shard per master and puts each shard's queue on a different master", async () => {
    const settings = queueSettings({}, DEFAULT_QUEUE, connection.check);
    expect(settings.shards).toBe(3);
    const keys = new KeyScheme("sy");
    const owners = await Promise.all(
      [0, 1, 2].map((shard) =>
        ownerOf(
          connection.redis as unknown as Cluster,
          keySlot(`${keys.turnQueuePrefix(shard, 3)}:switchyard-turns:wait`),
        ),
      ),
    );
    expect(new Set(owners).size).toBe(3);
  });

  it("starts a worker process that says it runs on the cluster, with a shard per master", async () => {
    const worker = await startWorkerProcess({ SWITCHYARD_PREFIX: "sytest-cluster-start" });
    try {
      const logs = worker.logs();
      expect(logs).toMatch(/"topology":"cluster".*"masters":3.*"msg":"connected to Redis"/);
      expect(logs).toMatch(/"shards":3.*"msg":"conversation queue"/);
    } finally {
      await worker.stop();
    }
  });
});
