/**
 * What a message arriving during a turn does (DESIGN.md, "Queue mode").
 *
 * - `collect`: it waits, and everything waiting makes the next turn.
 * - `steer`: it joins the running turn at its next step boundary.
 * - `followup`: it is a turn of its own, in order, never coalesced.
 * - `interrupt`: it ends the running turn, and a new one takes everything.
 */
export const QUEUE_MODES = ["collect", "steer", "followup", "interrupt"] as const;

export type QueueMode = (typeof QUEUE_MODES)[number];

export function isQueueMode(value: unknown): value is QueueMode {
  return typeof value === "string" && (QUEUE_MODES as readonly string[]).includes(value);
}

/** How one conversation takes its messages. */
export interface QueueBehaviour {
  readonly mode: QueueMode;
  /**
   * The quiet window: a turn's answer is settled only once no message has
   * come for this long, so a burst of quick lines is one turn in every mode.
   * In `collect` and `steer` the model is asked at once and the window runs
   * beside it (lines that come meanwhile start the request over with them,
   * see src/turn/quiet-window.ts); `followup` and `interrupt` wait it out
   * before the turn starts.
   */
  readonly debounceMs: number;
}

export const DEFAULT_QUEUE_BEHAVIOUR: QueueBehaviour = Object.freeze({
  mode: "collect",
  // Wider than the gaps of a burst typed or pasted within 300 ms, with room for
  // ingress jitter; short, because it is the least time before an answer shows.
  debounceMs: 400,
});

/** However long people keep typing, a turn starts this many quiet windows after its first message. */
const MAX_WINDOWS = 5;

/** What the take planner reads of a waiting message. */
export interface Waiting {
  readonly user: string;
  /** When the inbox took it (ms since the epoch); older inbox entries have only the platform's `time`. */
  readonly receivedAt?: number;
  readonly time: number;
}

/** The next turn's share of the inbox: take the first `take` messages now, or look again in `waitMs`. */
export type TakePlan = { readonly take: number } | { readonly waitMs: number };

/**
 * How many of the waiting messages the next turn takes, and whether to wait
 * for the quiet window first. `collect`, `steer` and `interrupt` take
 * everything waiting; `followup` takes one person's burst: the messages from
 * the first one's sender, each within the quiet window of the one before.
 * While the burst could still grow (nothing after it breaks it, and its last
 * message is younger than the window) the turn waits, at most
 * {@link MAX_WINDOWS} windows from its first message.
 *
 * @example
 * planTake([{ user: "u", receivedAt: 1_000, time: 1_000 }], { mode: "collect", debounceMs: 800 }, 1_200);
 * // { waitMs: 600 }
 */
export function planTake(
  waiting: readonly Waiting[],
  behaviour: QueueBehaviour,
  now: number,
): TakePlan {
  if (waiting.length === 0) return { take: 0 };
  const at = arrivedAt;
  const first = waiting[0] as Waiting;
  let take = waiting.length;
  if (behaviour.mode === "followup") {
    take = 1;
    while (take < waiting.length) {
      const next = waiting[take] as Waiting;
      const previous = waiting[take - 1] as Waiting;
      if (next.user !== first.user || at(next) - at(previous) > behaviour.debounceMs) break;
      take++;
    }
  }
  const open = take === waiting.length;
  const closes = open ? windowCloses(waiting, behaviour) : undefined;
  if (closes !== undefined && closes > now) return { waitMs: closes - now };
  return { take };
}

/** When a message arrived, as the quiet window reads it. */
export function arrivedAt(message: Waiting): number {
  return message.receivedAt ?? message.time;
}

/**
 * When the quiet window of these messages (a burst, oldest first) closes:
 * a window after the last one, at most {@link MAX_WINDOWS} after the first;
 * undefined without a window. A line that arrives by then belongs to the
 * burst, one after it to the next turn.
 */
export function windowCloses(
  burst: readonly Waiting[],
  behaviour: QueueBehaviour,
): number | undefined {
  const first = burst[0];
  const last = burst.at(-1);
  if (first === undefined || last === undefined || behaviour.debounceMs <= 0) return undefined;
  return Math.min(
    arrivedAt(last) + behaviour.debounceMs,
    arrivedAt(first) + MAX_WINDOWS * behaviour.debounceMs,
  );
}
