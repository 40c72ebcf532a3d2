import type { Cluster, Redis } from "ioredis";
import {
  describeTopology,
  LOCAL_REDIS_URL,
  maskRedisUrl,
  RedisFactory,
  type RedisTopology,
  topologyFrom,
} from "../../ops/redis/redis.ts";
import { checkRedis } from "../../ops/redis/redis-check.ts";
import { shardQueues } from "../../queue/shards.ts";
import { queueFromEnv, queueSettings } from "../../runtime/queue-settings.ts";
import { KeyScheme } from "../../store/keys.ts";
import { type DoctorContext, type Finding, ok, problem, reasonOf, within } from "./finding.ts";

const TOPOLOGY_WORDS = { single: "standalone", cluster: "cluster", sentinel: "Sentinel" } as const;
/** Wait lists named in the line; the rest are counted. */
const LISTS_SHOWN = 4;

/**
 * Redis answers, is what the environment says it is (standalone, cluster,
 * Sentinel: the same check `start` makes), and which BullMQ wait lists hold
 * the jobs waiting: what KEDA's Redis scaler watches.
 */
export async function checkRedisAnswers(context: DoctorContext): Promise<Finding[]> {
  const { env, config, timeoutMs } = context;
  let topology: RedisTopology;
  try {
    topology = topologyFrom(env, config.redis);
  } catch (error) {
    return [problem("redis", reasonOf(error), "fix the variable or key it names")];
  }
  const unset = topology.kind === "single" && !topology.url;
  if (topology.kind === "single" && !topology.url) topology = { ...topology, url: LOCAL_REDIS_URL };
  const where =
    topology.kind === "single" ? maskRedisUrl(topology.url ?? "") : describeTopology(topology);
  const variable = {
    single: "REDIS_URL",
    cluster: "REDIS_CLUSTER_NODES",
    sentinel: "REDIS_SENTINELS",
  }[topology.kind];
  const redis = new RedisFactory(topology).create("check", { lazyConnect: true });
  // Without a listener ioredis prints each failed reconnect; the failure is reported below.
  redis.on("error", () => {});
  try {
    await within(timeoutMs, `Redis at ${where}`, redis.connect());
    const check = await checkRedis(redis, topology, {
      timeoutMs,
      setting: env.REDIS_URL?.trim() ? "REDIS_URL" : undefined,
    });
    const version = await versionOf(redis, timeoutMs);
    const queue = queueSettings(queueFromEnv(env), config.queue, check);
    const prefix = env.SWITCHYARD_PREFIX ?? "sy";
    const keys = new KeyScheme(prefix);
    const lists = shardQueues(keys, queue.shards).map((shard) =>
      keys.turnWaitList(shard.shard, shard.shards),
    );
    const shown = lists.slice(0, LISTS_SHOWN).join(", ");
    const more = lists.length > LISTS_SHOWN ? ` and ${lists.length - LISTS_SHOWN} more` : "";
    const local = unset ? " (REDIS_URL is not set: start uses it, or starts redis-server)" : "";
    return [
      ok(
        "redis",
        `Redis ${version}, ${TOPOLOGY_WORDS[check.topology]}, at ${check.topology === "single" ? where : check.summary}${local}; queue: ${queue.shards} shard(s), wait list ${shown}${more}`,
      ),
    ];
  } catch (error) {
    const fix = unset
      ? "start Redis on 127.0.0.1:6379, or set REDIS_URL to yours (start would run a redis-server of its own here)"
      : `check that Redis runs there and that ${variable} (and REDIS_PASSWORD or the URL's password) is right`;
    return [problem("redis", `${where}: ${reasonOf(error)}`, fix)];
  } finally {
    redis.disconnect();
  }
}

/** `redis_version` from INFO server (of a master, on a cluster); "?" where INFO is forbidden. */
async function versionOf(redis: Redis, timeoutMs: number): Promise<string> {
  const node = redis.isCluster
    ? ((redis as unknown as Cluster).nodes("master")[0] ?? redis)
    : redis;
  try {
    const info = String(await within(timeoutMs, "INFO", node.info("server")));
    return /^redis_version:(\S+)/m.exec(info)?.[1] ?? "?";
  } catch {
    return "?";
  }
}
