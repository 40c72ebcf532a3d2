import type { Intent } from "../../core/availability/intent.ts";
import { keyWord } from "../../core/availability/keys.ts";
import type { ScopeLayer } from "../../core/availability/scopes.ts";
import { type ConversationAddress, conversationKey } from "../../core/conversation.ts";
import type { ContractReport } from "../../core/loading/report.ts";
import type { RecentConversation, TurnActivity } from "../../store/activity-store.ts";
import type { AnswerRating } from "../../store/feedback-store.ts";
import { type Html, html } from "./html.ts";

/** One MCP server as the console lists it. */
export interface McpServerState {
  readonly server: string;
  readonly tools: number;
  readonly available: boolean;
  readonly reason?: string;
}

/** Everything the conversation page shows, read at request time. */
export interface ConversationView {
  readonly address: ConversationAddress;
  readonly report: ContractReport;
  readonly intent: Intent;
  readonly scopes: { readonly workspace: ScopeLayer; readonly channel: ScopeLayer };
  readonly queueMode: string;
  readonly turns: readonly TurnActivity[];
  /** The rating of each of `turns`, in the same order; undefined: not rated, or expired. */
  readonly ratings?: readonly (AnswerRating | undefined)[];
  /** The reset form's token (see `actionToken`). */
  readonly resetToken: string;
}

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);
const n = (value: number) => value.toLocaleString("en-US");

function cachedShare(turn: TurnActivity): string {
  return turn.promptTokens > 0
    ? `${Math.round((100 * turn.cachedTokens) / turn.promptTokens)}%`
    : "-";
}

export function conversationHref(key: string): string {
  return `/console/conversations/${encodeURIComponent(key)}`;
}

export function conversationsView(recent: readonly RecentConversation[]): Html {
  if (recent.length === 0) return html`<p class="muted">No turn has ended yet.</p>`;
  return html`<table><thead><tr><th>Platform</th><th>Workspace</th><th>Channel</th><th>Conversation</th>
<th>Last turn</th><th>Outcome</th><th>Steps</th><th>Tokens (prompt / completion)</th><th>Cached</th></tr></thead><tbody>
${recent.map(
  ({ address, key, last }) => html`<tr><td>${address.platform}</td><td>${address.workspace}</td>
<td>${address.channel}</td><td><a href="${conversationHref(key)}">${address.conversation}</a></td>
<td>${last ? when(last.at) : "-"}</td><td>${last?.outcome ?? "-"}</td><td>${last?.steps ?? "-"}</td>
<td>${last ? `${n(last.promptTokens)} / ${n(last.completionTokens)}` : "-"}</td><td>${last ? cachedShare(last) : "-"}</td></tr>`,
)}</tbody></table>`;
}

function layerRows(name: string, layer: ScopeLayer): Html[] {
  const rows = Object.entries(layer.keys ?? {}).map(
    ([key, value]) =>
      html`<tr><td>${name}</td><td><code>${key}</code></td><td>${keyWord(value)}</td></tr>`,
  );
  if (layer.toolset)
    rows.push(html`<tr><td>${name}</td><td>toolset</td><td>${layer.toolset}</td></tr>`);
  if (layer.mode) rows.push(html`<tr><td>${name}</td><td>mode</td><td>${layer.mode}</td></tr>`);
  return rows;
}

function intentRows(intent: Intent): Html[] {
  const rows = Object.entries(intent.decisions).map(
    ([key, value]) =>
      html`<tr><td>conversation</td><td><code>${key}</code></td><td>${keyWord(value)}</td></tr>`,
  );
  const pairs: [string, string | null][] = [
    ["all tools", intent.master === "follow" ? null : intent.master],
    ["toolset", intent.toolset],
    ["web search", intent.webSearch === "follow" ? null : intent.webSearch],
    ["mode", intent.mode],
    ["picked", intent.picked ? intent.picked.join(", ") : null],
  ];
  for (const [what, value] of pairs) {
    if (value !== null)
      rows.push(html`<tr><td>conversation</td><td>${what}</td><td>${value}</td></tr>`);
  }
  return rows;
}

export function conversationView(view: ConversationView): Html {
  const { report, intent } = view;
  const overrides = [
    ...layerRows("workspace", view.scopes.workspace),
    ...layerRows("channel", view.scopes.channel),
    ...intentRows(intent),
  ];
  return html`<p>${view.address.platform} · workspace ${view.address.workspace} · channel ${view.address.channel}</p>
<p>Contract <span class="hash" id="contract-hash">${report.contractHash}</span> · mode ${report.mode}
· ${report.available} of ${report.total} tools available · queue mode <strong>${view.queueMode}</strong></p>
<h2>Resident (${report.resident.length}, ~${n(report.tokens.resident)} tokens)</h2>
<table><tbody>${report.resident.map(
    (id) =>
      html`<tr><td><code>${id}</code></td><td>~${n(report.tokens.perTool[id] ?? 0)} tokens</td></tr>`,
  )}</tbody></table>
<h2>Deferred (${report.deferred.length}, ~${n(report.tokens.catalog)} tokens in the catalog)</h2>
<p>${report.deferred.length ? report.deferred.join(", ") : html`<span class="muted">none</span>`}</p>
<h2>Asks first (${report.asking.length})</h2>
${report.asking.length ? html`<table><tbody>${report.asking.map((a) => html`<tr><td><code>${a.id}</code></td><td>${a.by}</td><td>${a.reason}</td></tr>`)}</tbody></table>` : html`<p class="muted">none: every call of an on tool runs without approval</p>`}
<h2>Disabled (${report.disabled.length})</h2>
<table><tbody>${report.disabled.map(
    (d) =>
      html`<tr><td><code>${d.id}</code></td><td>${d.by}</td><td>${d.by === "capability" ? `unavailable: ${d.reason}` : d.reason}</td></tr>`,
  )}</tbody></table>
<h2>Overrides</h2>
${overrides.length ? html`<table><thead><tr><th>Scope</th><th>Key</th><th>Value</th></tr></thead><tbody>${overrides}</tbody></table>` : html`<p class="muted">None: this conversation follows the config.</p>`}
<h2>Mounted by discovery</h2>
<p>${intent.mounted.length ? intent.mounted.join(", ") : html`<span class="muted">none</span>`}</p>
<h2>Last turns</h2>
${turnsTable(view.turns, view.ratings ?? [])}
${resetForm(view)}`;
}

/** `/new` and `/new --all`, as buttons: a POST with the page's token, never a link. */
function resetForm(view: ConversationView): Html {
  const action = `${conversationHref(conversationKey(view.address))}/reset`;
  return html`<h2>Reset</h2>
<form method="post" action="${action}" id="reset-conversation">
<input type="hidden" name="token" value="${view.resetToken}">
<p class="muted">Does what /new typed in the conversation does: forgets its history and the tools discovery loaded, at the next turn boundary (a running turn still answers).</p>
<button type="submit" name="all" value="no">Start fresh (/new)</button>
<button type="submit" name="all" value="yes">Start fresh and forget its choices (/new --all)</button>
</form>`;
}

function turnsTable(
  turns: readonly TurnActivity[],
  ratings: readonly (AnswerRating | undefined)[],
): Html {
  if (turns.length === 0) return html`<p class="muted">No turn recorded.</p>`;
  return html`<table id="turns"><thead><tr><th>Ended</th><th>Outcome</th><th>Seconds</th><th>Steps</th>
<th>Prompt</th><th>Cached</th><th>Completion</th><th>Feedback</th></tr></thead><tbody>${turns.map(
    (
      t,
      i,
    ) => html`<tr><td>${when(t.at)}</td><td class="${t.outcome === "error" ? "bad" : "ok"}">${t.outcome}</td>
<td>${(t.ms / 1000).toFixed(1)}</td><td>${t.steps}</td><td>${n(t.promptTokens)}</td><td>${cachedShare(t)}</td>
<td>${n(t.completionTokens)}</td><td>${feedbackCell(ratings[i])}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * A turn's votes: the tally, then each person's vote with their "what was
 * wrong?" when they gave one, under the turn id, model and contract hash
 * the votes are stored against.
 */
function feedbackCell(rating: AnswerRating | undefined): Html | string {
  if (rating === undefined) return "-";
  const up = rating.votes.filter((v) => v.vote === "up").length;
  const down = rating.votes.length - up;
  const votes = rating.votes.map(
    (v) =>
      html`<li>${v.vote === "up" ? "👍" : "👎"} ${v.name ?? v.voter}${v.why ? html`: <q class="why">${v.why}</q>` : ""}</li>`,
  );
  return html`<div class="feedback" data-turn="${rating.turnId}" data-feedback-id="${rating.id}">👍 ${up} · 👎 ${down}
<span class="muted">turn ${rating.turnId} · ${rating.model} · contract <span class="hash">${rating.contractHash}</span></span>
${votes.length ? html`<ul>${votes}</ul>` : ""}</div>`;
}

export function mcpView(servers: readonly McpServerState[]): Html {
  if (servers.length === 0) return html`<p class="muted">No MCP server is configured.</p>`;
  return html`<table><thead><tr><th>Server</th><th>State</th><th>Tools</th></tr></thead><tbody>${servers.map(
    (s) => html`<tr><td><code>mcp:${s.server}</code></td>
<td class="${s.available ? "ok" : "bad"}">${s.available ? "connected" : `not available: ${s.reason ?? ""}`}</td><td>${s.tools}</td></tr>`,
  )}</tbody></table>`;
}
