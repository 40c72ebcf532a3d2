import { z } from "zod";
import { describeValue } from "./errors.ts";

/**
 * How the conversation queue is spread and acknowledged.
 *
 * ```yaml
 * queue:
 *   shards: 4             # conversation queues; default 1, on a Redis Cluster one per master
 *   consume: [0, 1]       # the shards this process's workers take (default: all)
 *   wait_for_replicas: 1  # an enqueue returns once this many replicas have it (Sentinel, replicas)
 *   wait_timeout_ms: 1000 # how long it waits for them before the enqueue fails
 * ```
 *
 * A conversation's shard is a stable hash of its key, so its messages always
 * go to one queue; order and one turn at a time hold on any shard count.
 * Changing `shards` on a running deployment loses nothing: workers drain the
 * queues of the old count. Both keys apply at the next start.
 */
export interface QueueConfig {
  /** Undefined: chosen from the topology at start (1, or the cluster's master count). */
  readonly shards?: number;
  /** Undefined: every shard. */
  readonly consume?: readonly number[];
  readonly waitForReplicas: number;
  readonly waitTimeoutMs: number;
}

/** Enough to spread any cluster Switchyard is likely to meet, few enough that each is a connection. */
export const MAX_SHARDS = 256;

export const DEFAULT_QUEUE: QueueConfig = Object.freeze({
  waitForReplicas: 0,
  waitTimeoutMs: 1_000,
});

const whole = (what: string, min: number, max: number) =>
  z
    .number({
      error: (iss) => `expected a whole number of ${what}, found ${describeValue(iss.input)}.`,
    })
    .int({ error: (iss) => `expected a whole number of ${what}, found ${String(iss.input)}.` })
    .min(min, { error: `must be at least ${min}.` })
    .max(max, { error: `must be at most ${max}.` });

export const queueSection = z
  .strictObject(
    {
      shards: whole("shards", 1, MAX_SHARDS).optional(),
      consume: z
        .array(whole("a shard number", 0, MAX_SHARDS - 1), {
          error: (iss) =>
            `expected a list of shard numbers, e.g. [0, 1], found ${describeValue(iss.input)}.`,
        })
        .min(1, {
          error: "a worker that consumes no shard takes no turns; leave consume: out to take all.",
        })
        .optional(),
      wait_for_replicas: whole("replicas", 0, 16).default(DEFAULT_QUEUE.waitForReplicas),
      wait_timeout_ms: whole("milliseconds", 1, 60_000).default(DEFAULT_QUEUE.waitTimeoutMs),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. The queue section takes shards:, consume:, wait_for_replicas: and wait_timeout_ms:.`
          : `expected a map, found ${describeValue(iss.input)}. Put shards:, consume:, wait_for_replicas: and wait_timeout_ms: under queue:.`,
    },
  )
  .superRefine((q, ctx) => {
    if (q.shards === undefined || q.consume === undefined) return;
    q.consume.forEach((shard, i) => {
      if (shard < (q.shards as number)) return;
      ctx.addIssue({
        code: "custom",
        path: ["consume", i],
        message: `there is no shard ${shard} with shards: ${q.shards}; shards are numbered 0 to ${(q.shards as number) - 1}.`,
      });
    });
  })
  .transform(
    (q): QueueConfig =>
      Object.freeze({
        ...(q.shards !== undefined ? { shards: q.shards } : {}),
        ...(q.consume !== undefined
          ? { consume: Object.freeze([...new Set(q.consume)].sort((a, b) => a - b)) }
          : {}),
        waitForReplicas: q.wait_for_replicas,
        waitTimeoutMs: q.wait_timeout_ms,
      }),
  );
