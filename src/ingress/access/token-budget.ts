import { RESERVATION_TTL_MS, turnEstimate } from "../../core/budget/reservation.ts";
import {
  budgetRefusalText,
  type SpentBudget,
  spentBudget,
} from "../../core/budget/token-budget.ts";
import { dayPeriod, monthPeriod, nextUtcMidnight } from "../../core/budget/usage.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import type { InboundMessage } from "../../core/conversation.ts";
import type { AdmitCheck, MessageSubject } from "../../ports/admission.ts";
import type { ReservationOwner, Store } from "../../store/index.ts";
import { NOTICE_INTERVAL_MS, type Refusal } from "./refusals.ts";

/** Why a message over a daily token budget is refused, in `switchyard_refused_total{reason}`. */
export const TOKEN_BUDGET_REASON = "token_budget";

/** Where the budgets and the usage counted against them are read. */
export interface BudgetSources {
  readonly store: Pick<Store, "usage">;
  readonly config: () => SwitchyardConfig;
}

/** What {@link reserveBudget} reads and writes: the budgets, the usage and the reservations. */
export interface ReservationSources extends BudgetSources {
  readonly store: Pick<Store, "usage" | "reservations" | "keys">;
}

/** One budget a message is measured against: whose, how many tokens a day, and its counters. */
interface OwnedBudget {
  readonly owner: ReservationOwner;
  readonly name: SpentBudget["owner"];
  readonly budget: number;
}

/**
 * The refusal of a message whose person or workspace has spent today's
 * token budget (`budgets.tokens`), naming the budget and when it resets
 * (midnight UTC); undefined when neither is spent. Without budgets
 * configured it reads nothing. A turn in progress is never measured here.
 */
export async function budgetRefusal(
  sources: BudgetSources,
  message: MessageSubject,
  now: number,
): Promise<Refusal | undefined> {
  const budgets = sources.config().budgets;
  if (budgets.userTokensPerDay === undefined && budgets.workspaceTokensPerDay === undefined) {
    return undefined;
  }
  const day = dayPeriod(now);
  const usage = sources.store.usage;
  const [user, workspace] = await Promise.all([
    usage.read({ kind: "user", user: `${message.platform}:${message.user}` }, day),
    usage.read({ kind: "workspace", ref: message }, day),
  ]);
  const spent = spentBudget(budgets, { user, workspace }, now);
  return spent && budgetRefusalOf(spent, now);
}

function budgetRefusalOf(spent: SpentBudget, now: number): Refusal {
  return {
    reason: TOKEN_BUDGET_REASON,
    text: budgetRefusalText(spent, now),
    // Told again after the usual interval, or as soon as it has reset.
    quietMs: Math.max(1, Math.min(NOTICE_INTERVAL_MS, spent.resetsAt - now)),
  };
}

/** A message admitted under the token budgets: `release` gives its reservations back if it is refused after all. */
export type BudgetAdmission =
  | { readonly admitted: true; readonly release: () => Promise<void> }
  | { readonly admitted: false; readonly refusal: Refusal };

const NOTHING_HELD: BudgetAdmission = Object.freeze({ admitted: true, release: async () => {} });

/**
 * Admits a message under the daily token budgets (`budgets.tokens`) and
 * reserves its turn's estimate against each (see ReservationStore), or
 * refuses it naming the budget. The workspace's goes first, then the
 * person's: two scripts, each in its owner's slot (a cluster has them on
 * different masters); a refusal by the second gives the first back, so a
 * refused message holds nothing. The turn's end settles the reservations to
 * its real usage. The estimate is the person's recent average turn (see
 * `turnEstimate`), else `budgets.turn_estimate_tokens`.
 */
export async function reserveBudget(
  sources: ReservationSources,
  message: InboundMessage,
  now: number,
  ttlMs: number = RESERVATION_TTL_MS,
): Promise<BudgetAdmission> {
  const budgets = sources.config().budgets;
  const person: ReservationOwner = { kind: "user", user: `${message.platform}:${message.user}` };
  const owned: OwnedBudget[] = [];
  if (budgets.workspaceTokensPerDay !== undefined) {
    const owner = { kind: "workspace", ref: message } as const;
    owned.push({ owner, name: "workspace", budget: budgets.workspaceTokensPerDay });
  }
  if (budgets.userTokensPerDay !== undefined) {
    owned.push({ owner: person, name: "user", budget: budgets.userTokensPerDay });
  }
  if (owned.length === 0) return NOTHING_HELD;
  const { usage, reservations, keys } = sources.store;
  const [today, month] = await Promise.all([
    usage.read(person, dayPeriod(now)),
    usage.read(person, monthPeriod(now)),
  ]);
  const estimate = turnEstimate({ today, month }, budgets.turnEstimateTokens);
  const taken: ReservationOwner[] = [];
  const release = async () => {
    await Promise.all(taken.map((owner) => reservations.releaseIds(owner, [message.eventId])));
  };
  for (const { owner, name, budget } of owned) {
    const day = keys.usage(owner, dayPeriod(now));
    const check = await reservations.reserve(owner, day, budget, estimate, message.eventId, ttlMs);
    if (!check.admitted) {
      await release();
      const { used: spent, reserved } = check;
      const resetsAt = nextUtcMidnight(now);
      return {
        admitted: false,
        refusal: budgetRefusalOf({ owner: name, budget, spent, reserved, resetsAt }, now),
      };
    }
    taken.push(owner);
  }
  return { admitted: true, release };
}

/**
 * The token-budget check as a stand-alone {@link AdmitCheck}, for a
 * pipeline of one's own. It reads today's usage and reserves nothing, so
 * messages arriving together can all pass it; the access gate's `meter`
 * reserves each admitted turn's estimate instead ({@link reserveBudget}).
 *
 * @example
 * const check = tokenBudgetCheck(sources);
 * const refusal = await check({ ...address, user: "U0123" });
 * if (refusal) return reply(refusal.text);
 */
export function tokenBudgetCheck(sources: BudgetSources, now: () => number = Date.now): AdmitCheck {
  return async (message) => {
    const refusal = await budgetRefusal(sources, message, now());
    return refusal && { reason: refusal.reason, text: refusal.text };
  };
}
