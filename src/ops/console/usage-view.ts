import { formatCount, formatWait, tokensSpent, type UsageCounts } from "../../core/budget/usage.ts";
import { describeRate } from "../../core/config/index.ts";
import { type Html, html } from "./html.ts";
import type {
  BudgetState,
  LimitState,
  PersonUsage,
  WorkspaceRef,
  WorkspaceUsage,
} from "./usage.ts";

const n = formatCount;

export function workspaceHref(ref: WorkspaceRef): string {
  return `/console/usage/${encodeURIComponent(ref.platform)}/${encodeURIComponent(ref.workspace)}`;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

function counts(c: UsageCounts): Html {
  return html`<td>${n(tokensSpent(c))}</td><td>${n(c.prompt)}</td><td>${n(c.cached)}</td><td>${n(c.completion)}</td><td>${n(c.turns)}</td>`;
}

function budgetCells(budget: BudgetState | undefined, now: number): Html {
  if (!budget) return html`<td class="muted">none</td><td>-</td><td>-</td>`;
  return html`<td>${n(budget.budget)}</td><td class="${budget.left === 0 ? "bad" : "ok"}">${n(budget.left)}</td>
<td>${clock(budget.resetsAt)} (in ${formatWait(budget.resetsAt - now)})</td>`;
}

const COUNT_HEADS = html`<th>Tokens</th><th>Prompt</th><th>Cached</th><th>Completion</th><th>Turns</th>`;
const BUDGET_HEADS = html`<th>Daily budget</th><th>Left</th><th>Resets</th>`;

/** Every recently active workspace's tokens today against its budget, and the people's. */
export function usageView(
  workspaces: readonly WorkspaceUsage[],
  people: readonly PersonUsage[],
  now: number,
): Html {
  const spaces = workspaces.length
    ? html`<table><thead><tr><th>Platform</th><th>Workspace</th>${COUNT_HEADS}${BUDGET_HEADS}</tr></thead><tbody>${workspaces.map(
        (
          w,
        ) => html`<tr><td>${w.ref.platform}</td><td><a href="${workspaceHref(w.ref)}">${w.ref.workspace}</a></td>
${counts(w.today)}${budgetCells(w.budget, now)}</tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No workspace has had a turn lately.</p>`;
  const folks = people.length
    ? html`<table><thead><tr><th>Person</th>${COUNT_HEADS}${BUDGET_HEADS}</tr></thead><tbody>${people.map(
        (p) =>
          html`<tr><td><code>${p.user}</code></td>${counts(p.today)}${budgetCells(p.budget, now)}</tr>`,
      )}</tbody></table>`
    : html`<p class="muted">Nobody has used tokens today.</p>`;
  return html`<p class="muted">Today is the UTC day; budgets are budgets.tokens in the config and reset at 00:00 UTC.</p>
<h2>Workspaces today</h2>${spaces}
<h2>People today</h2><p class="muted">A person's budget counts across every workspace they write in.</p>${folks}`;
}

function limitRow(limit: LimitState): Html {
  const per = {
    user: "each person",
    conversation: "each conversation",
    workspace: "the workspace",
  };
  const w = limit.window;
  const state = w
    ? html`${n(w.used)} used, <span class="${w.left === 0 ? "bad" : "ok"}">${n(w.left)} left</span>${w.used > 0 ? ` (the oldest leaves the window in ${formatWait(w.resetsInMs)})` : ""}`
    : html`<span class="muted">counted per ${limit.name}</span>`;
  return html`<tr><td><code>limits.${limit.name}</code></td><td>${limit.rate.text}</td>
<td>${describeRate(limit.rate)} for ${per[limit.name]}</td><td>${state}</td></tr>`;
}

/** One workspace: today and this month, its budget, and its message limits as they stand. */
export function workspaceUsageView(usage: WorkspaceUsage, now: number): Html {
  return html`<table><thead><tr><th>Period</th>${COUNT_HEADS}</tr></thead><tbody>
<tr><td>today (UTC)</td>${counts(usage.today)}</tr><tr><td>this month</td>${counts(usage.month)}</tr></tbody></table>
<h2>Token budget</h2>
<table><thead><tr>${BUDGET_HEADS}</tr></thead><tbody><tr id="workspace-budget">${budgetCells(usage.budget, now)}</tr></tbody></table>
<h2>Message limits</h2>
${
  usage.limits.length
    ? html`<table><thead><tr><th>Limit</th><th>Configured</th><th>Means</th><th>Now</th></tr></thead><tbody>${usage.limits.map(limitRow)}</tbody></table>`
    : html`<p class="muted">No message limit is set for this workspace (limits: in the config).</p>`
}`;
}
