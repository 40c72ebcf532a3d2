import type { ContractSources } from "../conversation/contract.ts";
import { budgetRefusalText, spentBudget } from "../core/budget/token-budget.ts";
import { dayPeriod } from "../core/budget/usage.ts";
import type { AdmitCheck } from "../ports/admission.ts";

/**
 * The token-budget check for messages on their way to the queue: refuses
 * once the person's or the workspace's daily budget (`budgets.tokens`) is
 * spent, with a reply naming the budget and when it resets (midnight UTC).
 * Without budgets configured it reads nothing. The access gate can take it
 * as one of its checks.
 *
 * @example
 * const check = tokenBudgetCheck(sources);
 * const refusal = await check({ ...address, user: "U0123" });
 * if (refusal) return reply(refusal.text);
 */
export function tokenBudgetCheck(
  sources: Pick<ContractSources, "store" | "config">,
  now: () => number = Date.now,
): AdmitCheck {
  return async (message) => {
    const budgets = sources.config().budgets;
    if (budgets.userTokensPerDay === undefined && budgets.workspaceTokensPerDay === undefined) {
      return undefined;
    }
    const at = now();
    const day = dayPeriod(at);
    const usage = sources.store.usage;
    const [user, workspace] = await Promise.all([
      usage.read({ kind: "user", user: `${message.platform}:${message.user}` }, day),
      usage.read({ kind: "workspace", ref: message }, day),
    ]);
    const spent = spentBudget(budgets, { user, workspace }, at);
    return spent ? { reason: "token_budget", text: budgetRefusalText(spent, at) } : undefined;
  };
}
