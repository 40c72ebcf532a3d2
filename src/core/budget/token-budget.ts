import type { BudgetsConfig } from "../config/budgets-section.ts";
import {
  formatCount,
  formatWait,
  nextUtcMidnight,
  tokensSpent,
  type UsageCounts,
} from "./usage.ts";

/** A budget that is spent, as the refusal names it. */
export interface SpentBudget {
  readonly owner: "user" | "workspace";
  readonly budget: number;
  readonly spent: number;
  /** Tokens reserved by answers in progress, when the refusal counted them. */
  readonly reserved?: number;
  /** When it starts again: the next midnight UTC (ms since the epoch). */
  readonly resetsAt: number;
}

/**
 * Whether a new message would start a turn over a daily budget: the
 * workspace's first (it speaks for everyone there), then the person's.
 * Reaching the budget exactly counts as spent; a turn in progress is
 * never measured here, so it is never cut.
 */
export function spentBudget(
  budgets: BudgetsConfig,
  today: { readonly user: UsageCounts; readonly workspace: UsageCounts },
  now: number,
): SpentBudget | undefined {
  const resetsAt = nextUtcMidnight(now);
  const workspace = budgets.workspaceTokensPerDay;
  if (workspace !== undefined && tokensSpent(today.workspace) >= workspace) {
    return { owner: "workspace", budget: workspace, spent: tokensSpent(today.workspace), resetsAt };
  }
  const user = budgets.userTokensPerDay;
  if (user !== undefined && tokensSpent(today.user) >= user) {
    return { owner: "user", budget: user, spent: tokensSpent(today.user), resetsAt };
  }
  return undefined;
}

/**
 * The reply to a message refused for a spent budget: which budget, and when
 * it resets.
 *
 * @example
 * budgetRefusalText({ owner: "workspace", budget: 1000, spent: 1200, resetsAt }, now);
 * // "This workspace has used its daily budget of 1,000 tokens. It resets at 00:00 UTC (in 3 h 12 min); until then I can't answer here. An admin can raise budgets.tokens.workspace in the config."
 */
export function budgetRefusalText(spent: SpentBudget, now: number): string {
  const when = `It resets at 00:00 UTC (in ${formatWait(spent.resetsAt - now)})`;
  if (spent.spent < spent.budget) return heldText(spent, when);
  return spent.owner === "workspace"
    ? `This workspace has used its daily budget of ${formatCount(spent.budget)} tokens. ${when}; until then I can't answer here. An admin can raise budgets.tokens.workspace in the config.`
    : `You have used your daily budget of ${formatCount(spent.budget)} tokens. ${when}; until then I can't answer you. An admin can raise budgets.tokens.user in the config.`;
}

/**
 * The reply when the budget is not used up yet but the answers in progress
 * hold the rest of it: saying "used" would be wrong, and the person may
 * well be answered again once they are done (they may cost less than reserved).
 */
function heldText(spent: SpentBudget, when: string): string {
  const whose = spent.owner === "workspace" ? "This workspace's" : "Your";
  const raise = `budgets.tokens.${spent.owner}`;
  return `${whose} daily budget of ${formatCount(spent.budget)} tokens is taken up by what was used today (${formatCount(spent.spent)}) and the answers in progress. Try again once they are done. ${when}. An admin can raise ${raise} in the config.`;
}
