import {
  cachedShare,
  dayPeriod,
  formatCount,
  monthPeriod,
  tokensSpent,
  type UsageCounts,
} from "../../core/budget/usage.ts";
import type { ChatCommand } from "./registry.ts";
import { mayUse } from "./registry.ts";

/** One period's line: "today: 1,234 tokens (prompt 1,000, cached 400, completion 234) in 3 turns, 40% cached". */
export function usageLine(label: string, counts: UsageCounts): string {
  const share = cachedShare(counts);
  return `${label}: ${formatCount(tokensSpent(counts))} tokens (prompt ${formatCount(counts.prompt)}, cached ${formatCount(counts.cached)}, completion ${formatCount(counts.completion)}) in ${formatCount(counts.turns)} ${counts.turns === 1 ? "turn" : "turns"}${share === undefined ? "" : `, ${share}% cached`}`;
}

/** Millionths of a currency unit as dollars: 12345 -> "$0.0123". */
export function formatCost(micros: number): string {
  return `$${(micros / 1_000_000).toFixed(micros >= 10_000_000 ? 2 : 4)}`;
}

/**
 * `/usage`: this conversation's tokens and turns today and this month (UTC),
 * the cached share, an estimated cost where the config prices the model,
 * and for admins the workspace's totals and what is left of its budget.
 */
export const usageCommand: ChatCommand = {
  name: "usage",
  audience: "anyone",
  help: [
    {
      usage: "/usage",
      summary: "Tokens and turns used here today and this month.",
      audience: "anyone",
    },
    {
      usage: "/usage",
      summary: "Admins also see the workspace's totals and budget.",
      audience: "admins",
    },
  ],
  async run({ where, actor, ctx }) {
    const now = (ctx.now ?? Date.now)();
    const usage = ctx.sources.store.usage;
    const config = ctx.sources.config();
    const here = { kind: "conversation", address: where } as const;
    const [today, month] = await Promise.all([
      usage.read(here, dayPeriod(now)),
      usage.read(here, monthPeriod(now)),
    ]);
    const lines = [
      "Usage in this conversation (days and months in UTC):",
      usageLine("today", today),
      usageLine("this month", month),
    ];
    const priced = config.models.list.some((m) => m.price !== undefined);
    if (priced) {
      lines.push(
        `Estimated cost: ${formatCost(today.costMicros)} today, ${formatCost(month.costMicros)} this month.`,
      );
    }
    if (mayUse(actor, "admins", ctx.policy)) {
      const workspace = { kind: "workspace", ref: where } as const;
      const [wsToday, wsMonth] = await Promise.all([
        usage.read(workspace, dayPeriod(now)),
        usage.read(workspace, monthPeriod(now)),
      ]);
      lines.push(
        "",
        "This workspace:",
        usageLine("today", wsToday),
        usageLine("this month", wsMonth),
      );
      if (priced) {
        lines.push(
          `Estimated cost: ${formatCost(wsToday.costMicros)} today, ${formatCost(wsMonth.costMicros)} this month.`,
        );
      }
      const budget = config.budgets.workspaceTokensPerDay;
      lines.push(
        budget === undefined
          ? "No daily token budget is set for the workspace (budgets.tokens.workspace)."
          : `Daily budget: ${formatCount(Math.max(0, budget - tokensSpent(wsToday)))} of ${formatCount(budget)} tokens left; it resets at 00:00 UTC.`,
      );
      const perUser = config.budgets.userTokensPerDay;
      if (perUser !== undefined) {
        lines.push(`Each person may use ${formatCount(perUser)} tokens a day.`);
      }
    }
    return { kind: "reply", text: lines.join("\n") };
  },
};
