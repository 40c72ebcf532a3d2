import type { Capabilities } from "../availability/capabilities.ts";
import { keyWord } from "../availability/keys.ts";
import {
  type Decider,
  describeDecider,
  type Explanation,
  type ToolState,
} from "../availability/resolve.ts";
import { SCOPES } from "../availability/scopes.ts";
import { TOOL_SEARCH_ID } from "../loading/discovery-tool.ts";
import type { TurnContract } from "../loading/freeze.ts";
import type { LoadMode } from "../loading/modes.ts";
import { compareIds, type ToolRegistry } from "../tools/registry.ts";
import { SCOPE_HELP, SUMMARY, TIMING_HELP, TOOLS_VERBS, type ToolsVerb, USAGE } from "./usage.ts";

/**
 * What `/tools` shows, as data. Every channel renders the same view: the
 * console as text ({@link renderText}), Slack as blocks, Discord as an embed,
 * Telegram with buttons.
 */
export type ToolsView = ListView | WhyView | HelpView;

export type ToolItemState = "resident" | "deferred" | "disabled" | "unavailable";

export interface ToolItem {
  readonly id: string;
  readonly state: ToolItemState;
  /**
   * For `disabled` the decider ("channel scope", "channel scope (mcp:github)",
   * "toolset research", "the hand-picked list"); for `unavailable` the
   * capability's reason; for `deferred` how it loads; for `resident` empty, or
   * "loaded by tool_search".
   */
  readonly detail: string;
  /**
   * Set when the tool is on but each call waits for a person's approval
   * (`ask`): who decided that ("channel scope", "the tool's own default").
   */
  readonly asks?: string;
}

export interface ListView {
  readonly kind: "list";
  /** "N of M tools available": resident plus deferred, of every registered tool; `tool_search` is not counted. */
  readonly title: string;
  readonly mode: LoadMode;
  /** Resident first, then deferred, disabled and unavailable; registry order within each. */
  readonly items: readonly ToolItem[];
  readonly footer: string;
}

export interface WhyLine {
  /** A scope name, "capability", "toolset <name>", "hand-picked list" or "mode <mode>". */
  readonly label: string;
  /** The scope's mentions (`web_search=off, all=on`), or "—" when it says nothing. */
  readonly text: string;
  readonly decides: boolean;
}

export interface WhyView {
  readonly kind: "why";
  readonly id: string;
  readonly summary: string;
  /** Deepest first, like resolution: runtime, conversation, channel, workspace, global, then the selection. */
  readonly lines: readonly WhyLine[];
}

export interface HelpView {
  readonly kind: "help";
  readonly title: string;
  readonly entries: readonly {
    readonly verb: ToolsVerb;
    readonly usage: string;
    readonly summary: string;
  }[];
  readonly footer: string;
}

const ORDER: readonly ToolItemState[] = ["resident", "deferred", "disabled", "unavailable"];

/**
 * The list view of a frozen turn: every registered tool and its state.
 * `notices` are said before the footer: families the host lacks entirely
 * (an MCP server that never connected has no tools to list, so this is
 * where its reason shows).
 */
export function listView(contract: TurnContract, notices: readonly string[] = []): ListView {
  const resident = new Set(contract.resident);
  const mounted = new Set(contract.mounted);
  const items: ToolItem[] = [];
  for (const state of contract.resolution.states.values()) {
    if (state.id === TOOL_SEARCH_ID) continue;
    items.push(itemOf(state, contract, resident.has(state.id), mounted.has(state.id)));
  }
  items.sort((a, b) => ORDER.indexOf(a.state) - ORDER.indexOf(b.state));
  const available = items.filter((i) => i.state === "resident" || i.state === "deferred").length;
  const loading = contract.discovery
    ? " Deferred tools load with tool_search when the bot needs them."
    : "";
  return {
    kind: "list",
    title: `${available} of ${items.length} tools available`,
    mode: contract.mode,
    items,
    footer: [
      ...notices,
      `Mode ${contract.mode}.${loading} /tools why <tool> explains a state; /tools help lists the commands.`,
    ].join(" "),
  };
}

/**
 * Families whose capability is absent and that have no tool in the registry
 * (an MCP server that never connected): one sentence each, with the reason.
 */
export function missingFamilies(
  capabilities: Capabilities,
  registry: Pick<ToolRegistry, "families">,
): string[] {
  const present = new Set(registry.families());
  return Object.keys(capabilities)
    .filter((name) => name.startsWith("mcp:") && !present.has(name))
    .sort(compareIds)
    .flatMap((name) => {
      const status = capabilities[name];
      return status && !status.available ? [`${status.reason.replace(/\.$/, "")}.`] : [];
    });
}

function itemOf(
  state: ToolState,
  contract: TurnContract,
  resident: boolean,
  mounted: boolean,
): ToolItem {
  const { id } = state;
  switch (state.status) {
    case "absent":
      return { id, state: "unavailable", detail: state.reason };
    case "disabled":
      return { id, state: "disabled", detail: deciderPhrase(state.by, id) };
    case "enabled": {
      const asks = state.ask === undefined ? {} : { asks: deciderPhrase(state.ask, id) };
      if (resident)
        return { id, state: "resident", detail: mounted ? "loaded by tool_search" : "", ...asks };
      return { id, state: "deferred", detail: deferredDetail(contract), ...asks };
    }
  }
}

/** ", asks first (channel scope)" for a tool whose calls wait for approval; "" otherwise. */
export function asksText(item: ToolItem): string {
  return item.asks === undefined ? "" : `, asks first (${item.asks})`;
}

function deferredDetail(contract: TurnContract): string {
  return contract.discovery ? "load with tool_search" : `not loadable in ${contract.mode} mode`;
}

/** "channel scope", "channel scope (mcp:github)", "toolset research", "the hand-picked list". */
export function deciderPhrase(by: Decider, id: string): string {
  // In a line about one key, the key and "tool" go without saying.
  if (by.kind === "scope" && by.key === id) return `${by.scope} scope`;
  if (by.kind === "picked") return "the hand-picked list";
  return describeDecider(by);
}

/**
 * The why view: the explanation's summary, then every scope deepest first
 * with what it says about the tool, the deciding one marked. With the
 * contract, a last line says whether the tool is resident or deferred.
 */
export function whyView(explanation: Explanation, contract?: TurnContract): WhyView {
  const { id, state, chain } = explanation;
  const lines: WhyLine[] = [];
  if (state.status === "unknown") return { kind: "why", id, summary: explanation.summary, lines };
  if (state.status === "absent") {
    lines.push({
      label: "capability",
      text: `${state.capability} missing: ${state.reason}`,
      decides: true,
    });
  }
  const by = state.status === "absent" ? undefined : state.by;
  for (const scope of [...SCOPES].reverse()) {
    // The agent row is there only when an agent's base intent is a layer: the default agent has none.
    if (scope === "agent" && explanation.agent === undefined) continue;
    const mentions = chain.filter((m) => m.scope === scope);
    lines.push({
      label: scope === "agent" ? `agent ${explanation.agent}` : scope,
      text:
        mentions.length === 0
          ? "—"
          : mentions.map((m) => `${m.key}=${keyWord(m.value)}`).join(", "),
      decides: by?.kind === "scope" && by.scope === scope,
    });
  }
  if (by !== undefined && by.kind !== "scope" && by.kind !== "tool" && state.status !== "absent") {
    const included = state.status === "enabled";
    lines.push({
      label: by.kind === "toolset" ? `toolset ${by.toolset}` : "hand-picked list",
      text: included ? `includes ${id}` : `does not include ${id}`,
      decides: true,
    });
  }
  if (state.status === "enabled" && state.ask?.kind === "tool") {
    lines.push({
      label: "tool default",
      text: "approval: ask (each call waits for a person's approval)",
      decides: true,
    });
  }
  if (contract && state.status === "enabled") {
    const resident = contract.resident.includes(id);
    const text = resident
      ? contract.mounted.includes(id)
        ? "resident (loaded by tool_search)"
        : "resident"
      : `deferred (${deferredDetail(contract)})`;
    lines.push({ label: `mode ${contract.mode}`, text, decides: false });
  }
  return { kind: "why", id, summary: explanation.summary, lines };
}

/** Every command with its usage line, or one command's. */
export function helpView(topic: ToolsVerb | null = null): HelpView {
  const verbs = topic === null ? TOOLS_VERBS : [topic];
  return {
    kind: "help",
    title: topic === null ? "/tools: see and change which tools the bot has" : `/tools ${topic}`,
    entries: verbs.map((verb) => ({ verb, usage: USAGE[verb], summary: SUMMARY[verb] })),
    footer: `${SCOPE_HELP} ${TIMING_HELP}`,
  };
}

/** Plain text for channels without rich formatting (the console); no trailing newline. */
export function renderText(view: ToolsView): string {
  switch (view.kind) {
    case "list": {
      const width = Math.max(0, ...view.items.map((i) => i.id.length)) + 2;
      const rows = view.items.map((i) => `  ${i.id.padEnd(width)}${toolStateText(i)}`);
      return [view.title, ...rows, "", view.footer].join("\n");
    }
    case "why":
      return whyText(view);
    case "help":
      return helpText(view);
  }
}

/** A `why` answer as text: the summary, then each layer, the deciding one marked. Shared with /skills. */
export function whyText(view: {
  readonly summary: string;
  readonly lines: readonly {
    readonly label: string;
    readonly text: string;
    readonly decides: boolean;
  }[];
}): string {
  return [
    view.summary,
    ...view.lines.map((l) => `  ${l.label}: ${l.text}${l.decides ? "  <- decides" : ""}`),
  ].join("\n");
}

/** A `help` answer as text: each usage line with its summary under it. Shared with /skills. */
export function helpText(view: {
  readonly title: string;
  readonly entries: readonly { readonly usage: string; readonly summary: string }[];
  readonly footer: string;
}): string {
  return [
    view.title,
    ...view.entries.map((e) => `  ${e.usage}\n      ${e.summary}`),
    "",
    view.footer,
  ].join("\n");
}

/**
 * "resident", "deferred (load with tool_search)", "disabled by channel
 * scope", "unavailable: …"; an on tool that asks first adds ", asks first
 * (channel scope)".
 */
export function toolStateText(item: ToolItem): string {
  switch (item.state) {
    case "resident":
      return (item.detail === "" ? "resident" : `resident (${item.detail})`) + asksText(item);
    case "deferred":
      return `deferred (${item.detail})${asksText(item)}`;
    case "disabled":
      return `disabled by ${item.detail}`;
    case "unavailable":
      return `unavailable: ${item.detail}`;
  }
}
