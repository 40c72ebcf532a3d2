import {
  isQueueMode,
  QUEUE_MODES,
  type QueueBehaviour,
  type QueueMode,
} from "../core/agent/queue-mode.ts";
import { MAX_SHARDS, type QueueConfig, queueBehaviourFor } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { RedisCheck } from "../ops/redis/redis.ts";
import { defaultShardCount } from "../queue/shards.ts";
import { StartOptionError } from "./errors.ts";

/** The conversation queue as this process runs it. */
export interface QueueSettings {
  readonly shards: number;
  /** Undefined: every shard. */
  readonly consume?: readonly number[];
  readonly waitForReplicas: number;
  readonly waitTimeoutMs: number;
}

/** What the environment says about the queue, read before anything starts. */
export interface QueueEnv {
  readonly shards?: number;
  readonly consume?: readonly number[];
  /** `SWITCHYARD_QUEUE_MODE`: every conversation's mode, over the config (the runtime scope). */
  readonly mode?: QueueMode;
  /** `SWITCHYARD_QUEUE_DEBOUNCE_MS`: the quiet window, over the config. */
  readonly debounceMs?: number;
}

/**
 * `SWITCHYARD_QUEUE_SHARDS` and `SWITCHYARD_QUEUE_CONSUME` (`0,1,3`, or
 * ranges `0-3`). A bad value is a {@link StartOptionError} naming the
 * variable.
 */
export function queueFromEnv(env: NodeJS.ProcessEnv): QueueEnv {
  const shardsRaw = env.SWITCHYARD_QUEUE_SHARDS?.trim();
  const consumeRaw = env.SWITCHYARD_QUEUE_CONSUME?.trim();
  let shards: number | undefined;
  if (shardsRaw) {
    shards = /^\d+$/.test(shardsRaw) ? Number(shardsRaw) : Number.NaN;
    if (!(shards >= 1 && shards <= MAX_SHARDS)) {
      throw new StartOptionError(
        `SWITCHYARD_QUEUE_SHARDS must be a whole number from 1 to ${MAX_SHARDS}, not "${shardsRaw}". Every process of a deployment should use the same.`,
      );
    }
  }
  const modeRaw = env.SWITCHYARD_QUEUE_MODE?.trim();
  if (modeRaw && !isQueueMode(modeRaw)) {
    throw new StartOptionError(
      `SWITCHYARD_QUEUE_MODE must be one of ${QUEUE_MODES.join(", ")}, not "${modeRaw}".`,
    );
  }
  const debounceRaw = env.SWITCHYARD_QUEUE_DEBOUNCE_MS?.trim();
  const debounceMs = debounceRaw ? Number(debounceRaw) : undefined;
  if (
    debounceMs !== undefined &&
    !(Number.isInteger(debounceMs) && debounceMs >= 0 && debounceMs <= 60_000)
  ) {
    throw new StartOptionError(
      `SWITCHYARD_QUEUE_DEBOUNCE_MS must be a whole number of milliseconds from 0 to 60000, e.g. 400, not "${debounceRaw}".`,
    );
  }
  return {
    ...(shards !== undefined ? { shards } : {}),
    ...(consumeRaw ? { consume: shardList(consumeRaw) } : {}),
    ...(modeRaw && isQueueMode(modeRaw) ? { mode: modeRaw } : {}),
    ...(debounceMs !== undefined ? { debounceMs } : {}),
  };
}

function shardList(raw: string): number[] {
  const shards = new Set<number>();
  for (const part of raw.split(",").map((p) => p.trim())) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    const from = Number(range?.[1]);
    const to = Number(range?.[2] ?? range?.[1]);
    if (!range || to < from || to >= MAX_SHARDS) {
      throw new StartOptionError(
        `SWITCHYARD_QUEUE_CONSUME takes shard numbers and ranges such as "0,1" or "0-3", not "${raw}" (at "${part}").`,
      );
    }
    for (let shard = from; shard <= to; shard++) shards.add(shard);
  }
  return [...shards].sort((a, b) => a - b);
}

/**
 * A conversation's queue behaviour: the environment's (the runtime scope)
 * over the mode chosen in chat (`/queue`, stored in Redis), over the
 * config's channel, workspace and global settings, read on every turn so a
 * config reload applies.
 */
export function queueBehaviourOf(
  fromEnv: QueueEnv,
  config: () => QueueConfig,
): (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour {
  return (address, chosen) => {
    const configured = queueBehaviourFor(config(), address);
    return {
      mode: fromEnv.mode ?? chosen ?? configured.mode,
      debounceMs: fromEnv.debounceMs ?? configured.debounceMs,
    };
  };
}

/**
 * The settings this process runs with: the environment over the config's
 * `queue:` section, and a shard count from the topology when neither sets
 * one (see `defaultShardCount`).
 */
export function queueSettings(
  fromEnv: QueueEnv,
  config: QueueConfig,
  check: RedisCheck,
): QueueSettings {
  const shards =
    fromEnv.shards ?? config.shards ?? defaultShardCount(check.topology, check.masters);
  const consume = fromEnv.consume ?? config.consume;
  const missing = consume?.find((shard) => shard >= shards);
  if (missing !== undefined) {
    const source = fromEnv.consume
      ? "SWITCHYARD_QUEUE_CONSUME"
      : "queue.consume in the config file";
    throw new StartOptionError(
      `${source} names shard ${missing}, but there are ${shards} shards (0 to ${shards - 1}). Name shards below ${shards}, or raise the shard count (SWITCHYARD_QUEUE_SHARDS or queue.shards).`,
    );
  }
  if (config.waitForReplicas > 0 && check.topology === "cluster") {
    throw new StartOptionError(
      "queue.wait_for_replicas waits on one node's replicas, but on a Redis Cluster an enqueue writes to two nodes. Remove it from the config file for a cluster (or use Sentinel for acknowledged replication).",
    );
  }
  return {
    shards,
    ...(consume ? { consume } : {}),
    waitForReplicas: config.waitForReplicas,
    waitTimeoutMs: config.waitTimeoutMs,
  };
}
