import { budgetRefusalText, spentBudget } from "../core/budget/token-budget.ts";
import { dayPeriod } from "../core/budget/usage.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { AdmitCheck, MessageSubject } from "../ports/admission.ts";
import type { Store } from "../store/index.ts";
import { NOTICE_INTERVAL_MS, type Refusal } from "./refusals.ts";

/** Why a message over a daily token budget is refused, in `switchyard_refused_total{reason}`. */
export const TOKEN_BUDGET_REASON = "token_budget";

/** Where the budgets and the usage counted against them are read. */
export interface BudgetSources {
  readonly store: Pick<Store, "usage">;
  readonly config: () => SwitchyardConfig;
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
  if (!spent) return undefined;
  return {
    reason: TOKEN_BUDGET_REASON,
    text: budgetRefusalText(spent, now),
    // Told again after the usual interval, or as soon as it has reset.
    quietMs: Math.max(1, Math.min(NOTICE_INTERVAL_MS, spent.resetsAt - now)),
  };
}

/**
 * The token-budget check as a stand-alone {@link AdmitCheck}, for a
 * pipeline of one's own; the access gate runs the same check in `meter`.
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
