/**
 * The BullMQ prefixes and the bookkeeping of the queues. BullMQ's scripts
 * touch several keys of one queue at once, so every queue's prefix carries
 * its hash tag and all of the queue's keys share a slot. Every process of a
 * deployment reads this layout: never change it.
 */

import { StoreInputError } from "./errors.ts";
import { slotSpreadTag } from "./key-slot.ts";

/**
 * BullMQ's prefix for shard `shard` of `shards` of the conversation queue
 * under `prefix`. Each shard's tag sits at a different stretch of the slot
 * space (see `slotSpreadTag`), so on a cluster the shards land on different
 * masters. The shard count is part of the tag: queues of another count are
 * other queues, drained, never mixed.
 */
export function turnQueuePrefix(prefix: string, shard: number, shards: number): string {
  if (!Number.isInteger(shards) || shards < 1 || !Number.isInteger(shard) || shard < 0) {
    throw new StoreInputError(`There is no queue shard ${shard} of ${shards}.`);
  }
  if (shard >= shards) {
    throw new StoreInputError(
      `Shard ${shard} does not exist with ${shards} shards: shards are numbered 0 to ${shards - 1}.`,
    );
  }
  return `${prefix}:{${slotSpreadTag(`q:turns:${shard}of${shards}`, shard, shards)}}`;
}

/** BullMQ's name for the conversation queue inside each shard's prefix. */
export const TURN_QUEUE = "switchyard-turns";

/**
 * BullMQ's LIST of the jobs waiting in shard `shard` of `shards`: what
 * `switchyard doctor` names and a KEDA trigger (deploy/kubernetes) watches.
 */
export function turnWaitListKey(prefix: string, shard: number, shards: number): string {
  return `${turnQueuePrefix(prefix, shard, shards)}:${TURN_QUEUE}:wait`;
}

/** BullMQ's prefix for the reminder queue: one queue, one slot of its own. */
export function reminderQueuePrefix(prefix: string): string {
  return `${prefix}:{q:reminders}`;
}

/** BullMQ's prefix for the schedule tick queue: one queue, one slot of its own. */
export function scheduleQueuePrefix(prefix: string): string {
  return `${prefix}:{q:schedules}`;
}

/**
 * The HASH of the shard counts in use (count -> when a process last said it
 * uses it), so workers can find and drain the queues of a count no longer
 * configured.
 */
export function queueLayoutsKey(prefix: string): string {
  return `${prefix}:{q:layouts}`;
}

/**
 * BullMQ's prefix before queues were sharded and hash-tagged, `<prefix>:bull`.
 * Its keys span slots, so it exists only on a single Redis or Sentinel;
 * read only to drain what a deployment queued before upgrading.
 */
export function legacyQueuePrefix(prefix: string): string {
  return `${prefix}:bull`;
}
