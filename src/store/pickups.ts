import type { Redis } from "ioredis";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import type { KeyScheme } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/**
 * A conversation's next turn picked up more than this many times in a row
 * without moving on is given up, so one poison message cannot wedge a
 * conversation, nor crash-loop every worker, whatever stage kills it: its
 * files being read before the turn begins, or any step after. Pickups that
 * made progress (the turn begun, a step committed, a part delivered) start
 * the count over: a long turn on a fleet that restarts a lot still finishes.
 */
export const MAX_STALLED_PICKUPS = 3;

/** How long a count outlives its last pickup: far longer than a fleet takes to crash three times. */
const PICKUPS_TTL_MS = 86_400_000;

/**
 * Counts a pickup of the conversation's next turn: pickups that find it where the
 * previous one did add up, the same pickup sent again counts once. See the script.
 */
const COUNT = LuaScript.file("pickups-count-1");

/** One pickup of a conversation's next turn, as counted. */
export interface Pickup {
  /** Pickups in a row that found the turn where this one did, this one included. */
  readonly count: number;
  /** How many messages the first of them took: what a turn given up before it began gives up. */
  readonly took: number;
}

/**
 * Counts a pickup of the conversation's next turn standing `at` (see
 * {@link begunAt} and {@link unbegunAt}), by the worker holding the lease
 * `token`, before anything that could crash that worker runs.
 */
export async function countPickup(
  redis: Redis,
  keys: KeyScheme,
  address: ConversationAddress,
  pickup: { readonly at: string; readonly token: string; readonly takes: number },
): Promise<Pickup> {
  const [count, took] = (await COUNT.run(
    redis,
    [keys.conversation(address).pickups],
    [pickup.at, pickup.token, pickup.takes, PICKUPS_TTL_MS],
  )) as [number, string];
  // Never none: a turn given up with nothing to drop would be picked up again at once, forever.
  return { count: Number(count), took: Number(took) || pickup.takes };
}

/** Whether the pickup found its turn stuck too often: it is given up instead of run. */
export function stalled(pickup: Pickup): boolean {
  return pickup.count > MAX_STALLED_PICKUPS;
}

/** Where a begun turn stands: its id and what a pickup that made progress changes. */
export function begunAt(checkpoint: Checkpoint): string {
  const progress = `${checkpoint.step}.${checkpoint.calling?.step ?? 0}.${checkpoint.delivered.length}`;
  return `${checkpoint.turnId}:${progress}`;
}

/**
 * Where a turn not yet begun stands: at its first message, whatever joined
 * it since (a message arriving meanwhile must not start the count over).
 */
export function unbegunAt(pending: readonly InboundMessage[]): string {
  return `new:${pending[0]?.eventId ?? ""}`;
}
