import { z } from "zod";
import {
  DEFAULT_QUEUE_BEHAVIOUR,
  QUEUE_MODES,
  type QueueBehaviour,
  type QueueMode,
} from "../agent/queue-mode.ts";
import type { ConversationAddress } from "../conversation.ts";
import { describeValue } from "./errors.ts";
import { placeOverrides } from "./place-map.ts";
import { sectionMap } from "./section-map.ts";

/**
 * How the conversation queue is spread and acknowledged.
 *
 * ```yaml
 * queue:
 *   shards: 4             # conversation queues; default 1, on a Redis Cluster one per master
 *   consume: [0, 1]       # the shards this process's workers take (default: all)
 *   wait_for_replicas: 1  # an enqueue returns once this many replicas have it (Sentinel, replicas)
 *   wait_timeout_ms: 1000 # how long it waits for them before the enqueue fails
 *   mode: collect         # what a message during a turn does: collect, steer, followup, interrupt
 *   debounce_ms: 400      # the quiet window: lines this close together are one turn
 *   workspaces: { "slack:T0123": steer }       # a workspace's mode (platform:workspace id)
 *   channels: { "telegram:-1001234": followup } # a channel's, deepest wins (platform:channel id)
 * ```
 *
 * A conversation's shard is a stable hash of its key, so its messages always
 * go to one queue; order and one turn at a time hold on any shard count.
 * Changing `shards` on a running deployment loses nothing: workers drain the
 * queues of the old count. Both keys apply at the next start; the mode and
 * the quiet window apply from the next turn after a reload.
 */
export interface QueueConfig {
  /** Undefined: chosen from the topology at start (1, or the cluster's master count). */
  readonly shards?: number;
  /** Undefined: every shard. */
  readonly consume?: readonly number[];
  readonly waitForReplicas: number;
  readonly waitTimeoutMs: number;
  readonly mode: QueueMode;
  readonly debounceMs: number;
  /** Modes by `platform:workspace` and by `platform:channel`. */
  readonly workspaces: Readonly<Record<string, QueueMode>>;
  readonly channels: Readonly<Record<string, QueueMode>>;
}

/** Enough to spread any cluster Switchyard is likely to meet, few enough that each is a connection. */
export const MAX_SHARDS = 256;

export const DEFAULT_QUEUE: QueueConfig = Object.freeze({
  waitForReplicas: 0,
  waitTimeoutMs: 1_000,
  mode: DEFAULT_QUEUE_BEHAVIOUR.mode,
  debounceMs: DEFAULT_QUEUE_BEHAVIOUR.debounceMs,
  workspaces: Object.freeze({}),
  channels: Object.freeze({}),
});

/**
 * The queue mode of a conversation: its channel's, else its workspace's,
 * else the config's; with the quiet window.
 */
export function queueBehaviourFor(
  config: QueueConfig,
  address: Pick<ConversationAddress, "platform" | "workspace" | "channel">,
): QueueBehaviour {
  const own = (map: Readonly<Record<string, QueueMode>>, key: string) =>
    Object.hasOwn(map, key) ? map[key] : undefined;
  const mode =
    own(config.channels, `${address.platform}:${address.channel}`) ??
    own(config.workspaces, `${address.platform}:${address.workspace}`) ??
    config.mode;
  return { mode, debounceMs: config.debounceMs };
}

const modeOf = z.enum(QUEUE_MODES, {
  error: (iss) => `expected one of ${QUEUE_MODES.join(", ")}, found ${describeValue(iss.input)}.`,
});

const whole = (what: string, min: number, max: number) =>
  z
    .number({
      error: (iss) => `expected a whole number of ${what}, found ${describeValue(iss.input)}.`,
    })
    .int({ error: (iss) => `expected a whole number of ${what}, found ${String(iss.input)}.` })
    .min(min, { error: `must be at least ${min}.` })
    .max(max, { error: `must be at most ${max}.` });

export const queueSection = sectionMap("queue", {
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
  mode: modeOf.default(DEFAULT_QUEUE.mode),
  debounce_ms: whole("milliseconds", 0, 60_000).default(DEFAULT_QUEUE.debounceMs),
  ...placeOverrides(modeOf, "modes"),
})
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
        mode: q.mode,
        debounceMs: q.debounce_ms,
        workspaces: Object.freeze({ ...q.workspaces }),
        channels: Object.freeze({ ...q.channels }),
      }),
  );
