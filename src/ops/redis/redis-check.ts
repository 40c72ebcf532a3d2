import type { Redis } from "ioredis";
import { formatRedisAddress } from "../../core/config/index.ts";
import { ioredis } from "../../store/redis/ioredis.ts";
import {
  RedisClusterModeError,
  RedisClusterStateError,
  requireRedisVersion,
} from "../../store/redis/redis-errors.ts";
import type { ClusterTopology, RedisTopology } from "../../store/redis/redis-topology.ts";
import { describeTopology } from "../../store/redis/redis-topology.ts";
import { askOnceOptions, withTimeout } from "./redis-probe.ts";

/** What the startup check found, for the log line and `doctor`. */
export interface RedisCheck {
  readonly topology: RedisTopology["kind"];
  /** The masters serving the data: 1, or the cluster's. */
  readonly masters: number;
  /** One line: the topology and, on a cluster, its masters. */
  readonly summary: string;
}

const SLOTS = 16_384;

/**
 * Verifies that `redis` is what the configuration says, before anything uses
 * it. PING alone proves nothing on a cluster (any node answers it), so:
 *
 * - single node or Sentinel master: PING, then `INFO cluster` must not say
 *   `cluster_enabled:1` (a URL pointing at one node of a cluster fails later
 *   with MOVED; here it is a {@link RedisClusterModeError} naming the setting);
 * - cluster: every master answers `CLUSTER INFO` with `cluster_state:ok` and
 *   all 16384 slots assigned ({@link RedisClusterStateError} otherwise).
 *
 * `options.setting` names what configured a single node (`REDIS_URL`), for
 * the error; undefined when nothing did.
 */
export async function checkRedis(
  redis: Redis,
  topology: RedisTopology,
  options: { readonly timeoutMs: number; readonly setting?: string | undefined },
): Promise<RedisCheck> {
  const where = describeTopology(topology);
  const timed = <T>(promise: Promise<T>) =>
    withTimeout(
      promise,
      options.timeoutMs,
      () => new Error(`no answer within ${options.timeoutMs} ms`),
    );
  if (topology.kind === "cluster") return checkCluster(redis, topology, timed);

  await timed(redis.ping());
  // A managed Redis may forbid INFO (an ACL without @dangerous): nothing to learn then.
  const forbidden = (error: unknown) => {
    if (error instanceof ioredis().ReplyError) return "";
    throw error;
  };
  requireRedisVersion(await timed(redis.info("server")).catch(forbidden), where);
  const info = await timed(redis.info("cluster")).catch(forbidden);
  if (/^cluster_enabled:1\s*$/m.test(info)) {
    throw new RedisClusterModeError(
      where,
      topology.kind === "sentinel" ? "REDIS_SENTINELS (Sentinel)" : options.setting,
    );
  }
  return { topology: topology.kind, masters: 1, summary: where };
}

async function checkCluster(
  redis: Redis,
  topology: ClusterTopology,
  timed: <T>(promise: Promise<T>) => Promise<T>,
): Promise<RedisCheck> {
  const cluster = redis as unknown as import("ioredis").Cluster;
  const masters = cluster.nodes("master");
  if (masters.length === 0) {
    throw new RedisClusterStateError(
      `No master of the Redis Cluster is known after connecting to ${topology.nodes.map(formatRedisAddress).join(", ")}. Check that REDIS_CLUSTER_NODES names nodes of the cluster.`,
    );
  }
  for (const node of masters) {
    const info = parseInfo(String(await timed(node.call("CLUSTER", "INFO"))));
    const at = `${node.options.host}:${node.options.port}`;
    requireRedisVersion(
      await timed(node.info("server")).catch((error: unknown) => {
        if (error instanceof ioredis().ReplyError) return "";
        throw error;
      }),
      `The Redis Cluster node ${at}`,
    );
    if (info.cluster_state !== "ok") {
      throw new RedisClusterStateError(
        `The Redis Cluster node ${at} reports cluster_state:${info.cluster_state ?? "unknown"}: the cluster cannot serve every key. Fix the cluster first (redis-cli --cluster check ${at}), then start Switchyard.`,
      );
    }
    const assigned = Number(info.cluster_slots_assigned ?? 0);
    if (assigned !== SLOTS || Number(info.cluster_slots_fail ?? 0) > 0) {
      throw new RedisClusterStateError(
        `The Redis Cluster node ${at} reports ${assigned} of ${SLOTS} slots assigned (${info.cluster_slots_fail ?? 0} failing): keys in the others cannot be stored. Cover every slot (redis-cli --cluster fix ${at}), then start Switchyard.`,
      );
    }
  }
  return {
    topology: "cluster",
    masters: masters.length,
    summary: `${describeTopology(topology)}: ${masters.length} masters, all ${SLOTS} slots served`,
  };
}

/**
 * Why cluster seeds gave no cluster: asks the first seed directly. A seed
 * that is a plain Redis (cluster support disabled) is the usual mistake, and
 * its fix is a different variable.
 */
export async function diagnoseClusterSeeds(
  topology: ClusterTopology,
  timeoutMs: number,
): Promise<string | undefined> {
  const seed = topology.nodes[0];
  if (seed === undefined) return undefined;
  const client = new (ioredis().Redis)({
    host: seed.host,
    port: seed.port,
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
    ...(topology.tls ? { tls: {} } : {}),
    ...askOnceOptions(timeoutMs),
  });
  client.on("error", () => {});
  try {
    await client.connect();
    const info = await client.info("cluster");
    if (/^cluster_enabled:0\s*$/m.test(info)) {
      return `${formatRedisAddress(seed)} is a Redis without cluster mode. For a single Redis set REDIS_URL=redis://${formatRedisAddress(seed)} instead of REDIS_CLUSTER_NODES (or url: instead of cluster: under redis:)`;
    }
    const state = parseInfo(String(await client.call("CLUSTER", "INFO")));
    if (state.cluster_state !== "ok") {
      return `the cluster node ${formatRedisAddress(seed)} reports cluster_state:${state.cluster_state ?? "unknown"} with ${state.cluster_slots_assigned ?? 0} of ${SLOTS} slots assigned. Create or fix the cluster (redis-cli --cluster create ... or --cluster fix ${formatRedisAddress(seed)}), then start Switchyard`;
    }
    return undefined;
  } catch (error) {
    return `${formatRedisAddress(seed)} did not answer: ${(error as Error).message}`;
  } finally {
    client.disconnect();
  }
}

/** `CLUSTER INFO`'s `name:value` lines as a record. */
function parseInfo(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((line) => line.includes(":"))
      .map((line) => line.trim().split(":", 2) as [string, string]),
  );
}
