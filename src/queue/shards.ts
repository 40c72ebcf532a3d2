import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { KeyScheme } from "../store/keys.ts";

/**
 * The conversation queue as N shards. A conversation's shard is a stable
 * hash of its key, so its jobs always go to one queue; the order of its
 * messages and its one turn at a time come from its inbox and lease (in the
 * conversation's own slot), not from the queue, so any shard count keeps
 * them. On a Redis Cluster the shards' hash tags sit on different masters,
 * which is what spreads the queue's traffic.
 */

export { TURN_QUEUE } from "../store/queue-keys.ts";

/**
 * The shard of a conversation: the first 32 bits of the SHA-1 of its key,
 * modulo the count. Never change it: producers and workers of one deployment
 * must agree.
 *
 * @example
 * shardOf("console:local:terminal:main", 4) // the same number in every process, for ever
 */
export function shardOf(conversationKey: string, shards: number): number {
  if (shards <= 1) return 0;
  return createHash("sha1").update(conversationKey).digest().readUInt32BE(0) % shards;
}

/** One shard's BullMQ coordinates. */
export interface ShardQueue {
  readonly shard: number;
  readonly shards: number;
  /** BullMQ's `prefix` (hash-tagged); the queue name is {@link TURN_QUEUE}. */
  readonly prefix: string;
}

/** The queues of a layout of `shards` shards, or of the `consume` subset of them. */
export function shardQueues(
  keys: KeyScheme,
  shards: number,
  consume?: readonly number[],
): ShardQueue[] {
  const wanted = consume ?? Array.from({ length: shards }, (_, i) => i);
  return wanted.map((shard) => ({ shard, shards, prefix: keys.turnQueuePrefix(shard, shards) }));
}

/**
 * The shard count when none is configured: one queue on a single Redis or
 * Sentinel (it is all one node), one per master on a cluster.
 */
export function defaultShardCount(topology: "single" | "cluster" | "sentinel", masters: number) {
  return topology === "cluster" ? Math.max(1, masters) : 1;
}

/**
 * The shard counts a deployment has used, in Redis: count -> when a process
 * last said it uses it. Producers and workers refresh their own count; a
 * worker drains the queues of every other count until they are empty, and
 * forgets a count nobody has refreshed for a while once its queues are.
 */
export class ShardLayouts {
  readonly #key: string;

  constructor(
    private readonly redis: Redis,
    keys: KeyScheme,
  ) {
    this.#key = keys.queueLayouts();
  }

  async register(shards: number, now = Date.now()): Promise<void> {
    await this.redis.hset(this.#key, String(shards), String(now));
  }

  /** Every recorded count and when it was last refreshed. */
  async list(): Promise<Map<number, number>> {
    const raw = await this.redis.hgetall(this.#key);
    const layouts = new Map<number, number>();
    for (const [count, seen] of Object.entries(raw)) {
      const shards = Number(count);
      if (Number.isInteger(shards) && shards >= 1) layouts.set(shards, Number(seen) || 0);
    }
    return layouts;
  }

  async forget(shards: number): Promise<void> {
    await this.redis.hdel(this.#key, String(shards));
  }
}
