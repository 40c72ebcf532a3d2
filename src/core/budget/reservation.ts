import { tokensSpent, type UsageCounts } from "./usage.ts";

/**
 * What a turn is reckoned to cost before it has run, for a person with no
 * turn counted yet this month (see {@link turnEstimate}); `budgets.turn_estimate_tokens`
 * overrides it.
 *
 * Why 8,000: one request of a bot with a persona, a dozen resident tool
 * schemas and a short history sends some 3,000-6,000 prompt tokens, and a
 * turn that calls a tool sends it twice; 8,000 is about one such turn. Its
 * error matters little: a message is always admitted while the budget is not
 * reached, whatever the estimate, so the estimate only decides how many
 * turns may be in flight at once near the end of a budget. Too high, a burst
 * is refused a little early; too low, a burst overshoots by the error of
 * each turn in flight.
 */
export const DEFAULT_TURN_ESTIMATE = 8_000;

/**
 * How long a reservation holds if its turn never settles it (the message was
 * lost, or its conversation was reset before it ran). Long enough for a busy
 * queue and a long turn with tool calls; short enough that a budget held by
 * a lost message comes back within the quarter hour. A turn still running
 * after it (one waiting on a person's approval) is counted when it ends all
 * the same; it is only no longer reserved meanwhile.
 */
export const RESERVATION_TTL_MS = 15 * 60_000;

/**
 * What a person's next turn is reckoned to cost: their average turn today,
 * else this month's, else `fallback`. Their own recent turns are the best
 * guess at their next (the same bot, tools and habits: long documents or
 * short questions); today's follow a change of habit sooner than the month's.
 *
 * @example
 * turnEstimate({ today: { ...NO_USAGE, prompt: 9_000, completion: 1_000, turns: 2 }, month }); // 5000
 */
export function turnEstimate(
  recent: { readonly today: UsageCounts; readonly month: UsageCounts },
  fallback: number = DEFAULT_TURN_ESTIMATE,
): number {
  for (const counts of [recent.today, recent.month]) {
    if (counts.turns > 0) return Math.max(1, Math.round(tokensSpent(counts) / counts.turns));
  }
  return Math.max(1, Math.round(fallback));
}

/**
 * Whether a budget admits one more turn: while what was used today and what
 * turns in flight hold is under it. The new turn's own estimate is not
 * added, so a person under budget is never refused for a big estimate, and
 * what can be spent past the budget is the last admitted turn's: at most
 * one estimate, plus the estimation errors of the turns in flight. The
 * reservation script applies the same rule in Redis.
 */
export function budgetAdmits(
  committed: { readonly used: number; readonly reserved: number },
  budget: number,
): boolean {
  return committed.used + committed.reserved < budget;
}

/**
 * One owner's budget in the terms the reservation script keeps it: tokens
 * counted today, and each admitted turn's reservation by its message's id.
 * A model of the script, for reasoning and properties; Redis holds the real one.
 */
export interface BudgetLedger {
  readonly used: number;
  readonly reserved: ReadonlyMap<string, number>;
}

export const EMPTY_LEDGER: BudgetLedger = Object.freeze({ used: 0, reserved: new Map() });

/** The tokens every reservation of a ledger holds together. */
export function reservedTokens(ledger: BudgetLedger): number {
  let sum = 0;
  for (const tokens of ledger.reserved.values()) sum += tokens;
  return sum;
}

/**
 * Admits a message and reserves its turn's estimate, or refuses it (see
 * {@link budgetAdmits}). A message already holding a reservation (the
 * platform delivered it again) is admitted as it was, reserving nothing more.
 */
export function admitTurn(
  ledger: BudgetLedger,
  budget: number,
  id: string,
  estimate: number,
): { readonly admitted: boolean; readonly ledger: BudgetLedger } {
  if (ledger.reserved.has(id)) return { admitted: true, ledger };
  if (!budgetAdmits({ used: ledger.used, reserved: reservedTokens(ledger) }, budget)) {
    return { admitted: false, ledger };
  }
  const reserved = new Map(ledger.reserved).set(id, estimate);
  return { admitted: true, ledger: { used: ledger.used, reserved } };
}

/**
 * A turn ended: its messages' reservations give way to what it really used,
 * in one step. `used` 0 releases them with nothing counted (a turn given up,
 * a message refused by a later check, a reservation that expired).
 */
export function settleTurn(
  ledger: BudgetLedger,
  ids: readonly string[],
  used: number,
): BudgetLedger {
  const reserved = new Map(ledger.reserved);
  for (const id of ids) reserved.delete(id);
  return { used: ledger.used + used, reserved };
}
