import type { IntentChange } from "../availability/intent.ts";
import {
  ALL_KEY,
  ASK,
  isStructuralKey,
  type KeyValue,
  keysOf,
  keyValueOf,
  keyWord,
  MCP_KEY,
} from "../availability/keys.ts";
import { type Explanation, explain as explainTool } from "../availability/resolve.ts";
import { CHAT_SCOPES, type ChatScope } from "../availability/scopes.ts";
import { TOOL_SEARCH_ID } from "../loading/discovery-tool.ts";
import type { TurnContract } from "../loading/freeze.ts";
import type { LoadMode } from "../loading/modes.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { Toolsets } from "../tools/toolsets.ts";
import { planOrRefuse } from "./errors.ts";
import {
  decidingOver,
  deeperSetting,
  holder,
  keyOverrideNote,
  keyOverrides,
  stateWord,
} from "./overrides.ts";
import { parseToolsCommand, type ToolsCommand } from "./parse.ts";
import { type Actor, type CommandPolicy, checkPermission } from "./permissions.ts";
import { confirm, modeMeaning, shallower, subject, where } from "./replies.ts";
import type { ScopeChange, SharedScope } from "./scope-change.ts";
import { closest, orList } from "./suggest.ts";
import { helpView, listView, type ToolsView, whyView } from "./view.ts";

/** Everything planning needs, handed in by the shell: the core reads no store. */
export interface PlanContext {
  readonly actor: Actor;
  readonly policy: CommandPolicy;
  /** The live registry: the ids a command may name. */
  readonly registry: ToolRegistry;
  /** The toolsets `preset` may name (the config's, merged over the built-ins). */
  readonly toolsets: Toolsets;
  /**
   * This conversation's contract as of now (the last frozen turn, or one
   * frozen for the command): what `list` and `why` show, and what tells a
   * change that a deeper scope still overrides it.
   */
  readonly contract: TurnContract;
  /** Said in the list before its footer, e.g. an MCP server that never connected (see `missingFamilies`). */
  readonly notices?: readonly string[];
  /** Explains one tool; defaults to `explain` over the contract's resolution. */
  readonly explain?: (id: string) => Explanation;
}

/**
 * What to do about a command, as data. The shell applies a `change` to the
 * store (a conversation's intent or a shared scope's layer), then sends
 * `reply`; a `reply` plan only shows a view; a `refused` plan only answers.
 */
export type ToolsPlan =
  | {
      readonly kind: "change";
      readonly scope: "conversation";
      readonly change: IntentChange;
      readonly reply: string;
    }
  | {
      readonly kind: "change";
      readonly scope: SharedScope;
      readonly change: ScopeChange;
      readonly reply: string;
    }
  | { readonly kind: "reply"; readonly view: ToolsView }
  | { readonly kind: "refused"; readonly reply: string };

/**
 * Plans a parsed command: checks who may change the scope, checks the names
 * against the registry and the toolsets, and words the confirmation. Reads
 * (`list`, `why`, `help`) need no permission.
 *
 * @example
 * const plan = planToolsCommand(parseToolsCommand("off web_search channel"), ctx);
 * // { kind: "change", scope: "channel", change: { kind: "set", key: "web_search", value: "off" },
 * //   reply: "web_search is now off in this channel. This applies from the next message; ..." }
 *
 * `ask` is planned like `on` and `off`, with the same permission check: it
 * changes availability (rule 8), only what a call does differs.
 */
export function planToolsCommand(command: ToolsCommand, ctx: PlanContext): ToolsPlan {
  switch (command.verb) {
    case "list":
      return { kind: "reply", view: listView(ctx.contract, ctx.notices) };
    case "help":
      return { kind: "reply", view: helpView(command.topic) };
    case "why":
      return planWhy(command.id, ctx);
  }
  const scope = command.verb === "pick" ? "conversation" : command.scope;
  const permission = checkPermission(ctx.actor, scope, ctx.policy, command);
  if (!permission.allowed) return refused(permission.reason);
  switch (command.verb) {
    case "on":
    case "off":
    case "ask":
      return planSwitch(command.key, keyValueOf(command.verb), command.scope, ctx);
    case "reset":
      return planReset(command.key, command.scope, ctx);
    case "mode":
      return planMode(command.mode, command.scope, ctx);
    case "preset":
      return planPreset(command.toolset, command.scope, ctx);
    case "pick":
      return planPick(command.ids, ctx);
  }
}

/** Parses and plans in one step; a command that cannot be read is refused with the parser's message. */
export function planToolsText(text: string, ctx: PlanContext): ToolsPlan {
  return planOrRefuse(text, parseToolsCommand, (c) => planToolsCommand(c, ctx), refused);
}

function planSwitch(key: string, value: KeyValue, scope: ChatScope, ctx: PlanContext): ToolsPlan {
  const word = keyWord(value);
  const unknown = unknownKey(key, word, scope, ctx);
  if (unknown) return refused(unknown);
  const { covered, overrides } = keyOverrides(
    ctx.contract.resolution,
    ctx.registry,
    scope,
    key,
    value,
  );
  const state = ctx.contract.resolution.states.get(key);
  const floor =
    value !== false && state?.status === "absent"
      ? `But ${key} is unavailable: ${state.reason}. No scope can turn it on until that changes.`
      : "";
  const said =
    value === ASK
      ? `${subject(key)} now ${stateWord(value)} ${where(scope)}: offered as before, but each call waits for a person's approval.`
      : `${subject(key)} now ${word} ${where(scope)}.`;
  const reply = confirm(
    said,
    floor,
    defaultAskNote(key, value, scope, ctx),
    keyOverrideNote(key, scope, covered, overrides),
  );
  return change(scope, { kind: "set", key, value: word }, reply);
}

/**
 * What an `on` does to tools that ask first by their own default: an `on`
 * for the tool or its family lifts that, one from `all` or `mcp` does not
 * (a blanket switch never silently removes a safety check). Said either way.
 */
function defaultAskNote(key: string, value: KeyValue, scope: ChatScope, ctx: PlanContext): string {
  if (value !== true) return "";
  const { resolution } = ctx.contract;
  const decided: string[] = [];
  const keptByAll: string[] = [];
  for (const tool of ctx.registry.list()) {
    if (tool.approval !== ASK || !keysOf(tool).includes(key)) continue;
    if (resolution.states.get(tool.id)?.status === "absent") continue;
    const over = decidingOver(resolution, tool, scope, key);
    if (over === undefined) decided.push(tool.id);
    // A deeper `all` or `mcp` on decides it instead, and keeps its own default.
    else if (over.value === true && (over.key === ALL_KEY || over.key === MCP_KEY)) {
      keptByAll.push(tool.id);
    }
  }
  const blanket = key === ALL_KEY || key === MCP_KEY;
  if (blanket && decided.length > 0) {
    return `${listOf(decided)} still ${verb(decided, "asks", "ask")} first by ${verb(decided, "its", "their")} own default; /tools on <tool> lifts that.`;
  }
  if (!blanket && decided.length > 0) {
    return `This lifts the ask-first default of ${listOf(decided)}: ${verb(decided, "its", "their")} calls run without approval.`;
  }
  if (!blanket && keptByAll.length > 0) {
    return `But ${listOf(keptByAll)} still ${verb(keptByAll, "asks", "ask")} first: a deeper all or mcp decides ${verb(keptByAll, "it", "them")}, and that keeps a tool's own ask-first default.`;
  }
  return "";
}

function listOf(ids: readonly string[]): string {
  return ids.length === 1 ? (ids[0] as string) : `${ids.slice(0, -1).join(", ")} and ${ids.at(-1)}`;
}

function verb(ids: readonly string[], one: string, many: string): string {
  return ids.length === 1 ? one : many;
}

function planReset(key: string | null, scope: ChatScope, ctx: PlanContext): ToolsPlan {
  if (key === null) {
    const kept = scope === "conversation" ? " Tools loaded by tool_search stay loaded." : "";
    const reply = confirm(
      `Every tool setting ${where(scope)} is reset: ${shallower(scope)} decide again.${kept}`,
    );
    return change(scope, { kind: "reset" }, reply);
  }
  const unknown = unknownKey(key, "reset", scope, ctx);
  if (unknown) return refused(unknown);
  const reply = confirm(`${key} is reset ${where(scope)}: ${shallower(scope)} decide it again.`);
  return change(scope, { kind: "reset", key }, reply);
}

function planMode(mode: LoadMode | null, scope: ChatScope, ctx: PlanContext): ToolsPlan {
  const deeper = deeperSetting(ctx.contract.resolution, scope, "mode");
  const note =
    deeper && deeper.value !== mode
      ? `But ${holder(deeper.scope)} uses mode ${deeper.value}, which wins here.`
      : "";
  const said =
    mode === null
      ? `The load mode ${where(scope)} now follows ${shallower(scope)}.`
      : `The load mode is now ${mode} ${where(scope)}: ${modeMeaning(mode)}.`;
  return change(scope, { kind: "mode", mode }, confirm(said, note));
}

function planPreset(name: string | null, scope: ChatScope, ctx: PlanContext): ToolsPlan {
  if (name !== null && !Object.hasOwn(ctx.toolsets, name)) {
    const known = Object.keys(ctx.toolsets).sort();
    return refused(
      `There is no toolset "${name}".${didYouMean(name, known)} Known toolsets: ${known.join(", ")}.`,
    );
  }
  const { resolution } = ctx.contract;
  const deeper = deeperSetting(resolution, scope, "toolset");
  const picked = resolution.selection.kind === "picked";
  let note = "";
  if (picked && scope !== "conversation" && deeper?.scope !== "runtime") {
    note =
      "But this conversation has a hand-picked tool list, which wins here; /tools pick none returns it to the toolset.";
  } else if (deeper && deeper.value !== name) {
    note = `But ${holder(deeper.scope)} uses toolset ${deeper.value}, which wins here.`;
  }
  const replaces = picked && scope === "conversation" ? " It replaces the hand-picked list." : "";
  const said =
    name === null
      ? `The toolset ${where(scope)} now follows ${shallower(scope)}.${replaces}`
      : `The toolset is now ${name} ${where(scope)}.${replaces}`;
  return change(scope, { kind: "toolset", name }, confirm(said, note));
}

function planPick(ids: readonly string[], ctx: PlanContext): ToolsPlan {
  const unknown = ids.filter((id) => !isKnownTool(id, ctx));
  const [only] = unknown;
  if (only !== undefined && unknown.length === 1) return refused(unknownTool(only, ctx));
  if (unknown.length > 1) {
    const names = ctx.registry.list().map((t) => t.id);
    const each = unknown.map((id) => {
      const near = closest(id, names);
      return near.length === 0 ? `"${id}"` : `"${id}" (did you mean ${orList(near)}?)`;
    });
    return refused(`There are no tools ${orList(each)}. /tools lists the tools this bot has.`);
  }
  const runtime = deeperSetting(ctx.contract.resolution, "conversation", "toolset");
  const note = runtime
    ? `But ${holder(runtime.scope)} uses toolset ${runtime.value}, which wins over a hand-picked list.`
    : "";
  const said =
    ids.length === 0
      ? "The hand-picked list is cleared: this conversation follows its toolset again."
      : `This conversation now has exactly these tools: ${ids.join(", ")}. A tool switched on or off by name in any scope still follows that switch.`;
  return {
    kind: "change",
    scope: "conversation",
    change: { kind: "pick", ids },
    reply: confirm(said, note),
  };
}

function planWhy(id: string, ctx: PlanContext): ToolsPlan {
  const { contract } = ctx;
  if (id === TOOL_SEARCH_ID) {
    const offered = contract.discovery
      ? `it is offered now, to load ${contract.deferred.length} deferred tools`
      : `it is not offered now: mode ${contract.mode} ${contract.deferred.length === 0 ? "defers nothing" : "does not allow discovery"}`;
    return {
      kind: "reply",
      view: {
        kind: "why",
        id,
        summary: `${id}: the discovery tool. It has no switch of its own: it is there exactly when the load mode defers tools and allows discovery; ${offered}.`,
        lines: [],
      },
    };
  }
  if (!ctx.registry.has(id) && !contract.resolution.states.has(id)) {
    return refused(unknownTool(id, ctx));
  }
  const explanation = ctx.explain
    ? ctx.explain(id)
    : explainTool(contract.resolution, ctx.registry, id);
  return { kind: "reply", view: whyView(explanation, contract) };
}

/** A refusal for a key no tool, family or scope mention has; undefined when the key is fine. */
function unknownKey(
  key: string,
  verb: "on" | "off" | "ask" | "reset",
  scope: ChatScope,
  ctx: PlanContext,
): string | undefined {
  // A server may be down or not yet connected; its switch must still hold when it comes back.
  if (isStructuralKey(key) || key.startsWith("mcp__")) return undefined;
  if (ctx.registry.has(key)) return undefined;
  if (key.includes(":")) {
    const families = ctx.registry.families();
    if (families.includes(key)) return undefined;
    return `There is no tool family "${key}".${didYouMean(key, families)} Families: ${families.join(", ") || "none"}.`;
  }
  // Reset may clean up a key that names a tool no longer registered.
  const layer = ctx.contract.resolution.layers.find((l) => l.scope === scope)?.layer;
  if (verb === "reset" && layer?.keys && Object.hasOwn(layer.keys, key)) return undefined;
  const asScope = (CHAT_SCOPES as readonly string[]).includes(key.toLowerCase())
    ? ` To ${verb === "reset" ? "reset" : "switch"} every tool in the ${key.toLowerCase()} scope: /tools ${verb} all ${key.toLowerCase()}.`
    : "";
  return unknownTool(key, ctx, asScope);
}

function isKnownTool(id: string, ctx: PlanContext): boolean {
  return ctx.registry.has(id) || id.startsWith("mcp__");
}

function unknownTool(id: string, ctx: PlanContext, hint = ""): string {
  if (id === TOOL_SEARCH_ID) {
    return `${id} has no switch of its own: it is there exactly when the load mode defers tools. /tools mode full or /tools mode minimal drops it.`;
  }
  if (id.startsWith("mcp__")) {
    return `No tool "${id}" is registered now; if it comes from an MCP server, the server may not be connected.`;
  }
  const names = [...ctx.registry.list().map((t) => t.id), ALL_KEY, MCP_KEY];
  return `There is no tool "${id}".${didYouMean(id, names)}${hint} /tools lists the tools this bot has.`;
}

function didYouMean(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  return near.length === 0 ? "" : ` Did you mean ${orList(near)}?`;
}

/** The changes that read the same for a conversation's intent and a shared scope's layer. */
type CommonChange = ScopeChange & IntentChange;

function change(scope: ChatScope, change: CommonChange, reply: string): ToolsPlan {
  return scope === "conversation"
    ? { kind: "change", scope, change, reply }
    : { kind: "change", scope, change, reply };
}

function refused(reply: string): ToolsPlan {
  return { kind: "refused", reply };
}
