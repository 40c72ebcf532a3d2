import { DEFAULT_ESSENTIAL, type LoadMode } from "../loading/modes.ts";
import { WarnOnce } from "../logger.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import { BUILTIN_TOOLSETS, expandToolset, type Toolsets } from "../tools/toolsets.ts";
import { type Capabilities, capabilityStatus } from "./capabilities.ts";
import type { Intent } from "./intent.ts";
import { ALL_KEY, ASK, isStructuralKey, type KeyValue, keysOf, keyWord } from "./keys.ts";
import type { ScopeLayer, ScopeName, ScopeStack } from "./scopes.ts";

/** Who decided a tool's state. */
export type Decider =
  | {
      readonly kind: "scope";
      readonly scope: ScopeName;
      readonly key: string;
      /** The agent whose base intent decided, when the scope is `agent`. */
      readonly agent?: string;
    }
  | { readonly kind: "toolset"; readonly toolset: string }
  | { readonly kind: "picked" }
  /** The tool's own default (`approval: "ask"` in `defineTool`). */
  | { readonly kind: "tool" };

export type ToolState =
  | {
      readonly id: string;
      readonly status: "enabled";
      readonly by: Decider;
      /** Switched on by its own id: a standing mount, resident even under a curated mode. */
      readonly standing: boolean;
      /**
       * Set when a call must wait for a person's approval (`ask`): who
       * decided that. The model sees the tool exactly as under `on`.
       */
      readonly ask?: Decider;
    }
  | { readonly id: string; readonly status: "disabled"; readonly by: Decider }
  | {
      readonly id: string;
      readonly status: "absent";
      readonly capability: string;
      readonly reason: string;
    };

export interface AvailabilityPolicy {
  /** Named presets; `default` and `full` always exist. */
  readonly toolsets?: Toolsets;
  /** Tools a curated mode keeps resident; they cannot be demoted. */
  readonly essential?: readonly string[];
  /** Unknown ids are reported here once each. Keep one per process. */
  readonly warnings?: WarnOnce;
  /** The id of the agent whose base intent is the stack's `agent` layer, for explanations. */
  readonly agent?: string;
}

/** A layer with the scope it came from, deepest first. */
export interface NamedLayer {
  readonly scope: ScopeName;
  readonly layer: ScopeLayer;
  /** The agent the `agent` layer belongs to. */
  readonly agent?: string;
}

export interface Resolution {
  /** Every registry tool's state, in registry order. */
  readonly states: ReadonlyMap<string, ToolState>;
  readonly mode: LoadMode;
  /** Where the selection came from: a toolset name, or a hand-picked list. */
  readonly selection: Decider;
  readonly essential: ReadonlySet<string>;
  /** The layers that were consulted, deepest first; kept for `explain`. */
  readonly layers: readonly NamedLayer[];
}

/** Turns the conversation's intent into its scope layer. */
export function conversationLayer(intent: Intent): ScopeLayer {
  const keys: Record<string, KeyValue> = {};
  if (intent.master !== "follow") {
    keys[ALL_KEY] = intent.master === ASK ? ASK : intent.master === "on";
  }
  if (intent.webSearch !== "follow") keys.web_search = intent.webSearch === "on";
  Object.assign(keys, intent.decisions);
  return {
    keys,
    ...(intent.toolset !== null ? { toolset: intent.toolset } : {}),
    ...(intent.mode !== null ? { mode: intent.mode } : {}),
  };
}

/** The scope layers, deepest first, with the conversation's from its intent. */
export function layersOf(scopes: ScopeStack, intent: Intent, agent?: string): NamedLayer[] {
  const layers: NamedLayer[] = [];
  if (scopes.runtime) layers.push({ scope: "runtime", layer: scopes.runtime });
  layers.push({ scope: "conversation", layer: conversationLayer(intent) });
  if (scopes.channel) layers.push({ scope: "channel", layer: scopes.channel });
  if (scopes.workspace) layers.push({ scope: "workspace", layer: scopes.workspace });
  if (scopes.agent) {
    layers.push({ scope: "agent", layer: scopes.agent, ...(agent !== undefined ? { agent } : {}) });
  }
  if (scopes.global) layers.push({ scope: "global", layer: scopes.global });
  return layers;
}

/**
 * Decides every tool's state for one turn.
 *
 * In order: the capability floor (absent stays absent, whatever any scope
 * says); then the deepest scope that mentions any of the tool's keys, where
 * within that scope the most specific key decides (id, family, `mcp`, `all`);
 * then the selection (a hand-picked list, else the deepest toolset, else
 * `default`).
 *
 * An enabled tool asks first (its state carries `ask`, with who decided
 * that) when the deciding key says `ask`, or when the tool's own default is
 * `approval: "ask"` and no person's explicit `on` for its id or its family
 * decides it: `on` from `all` or the aggregate `mcp`, or the toolset's
 * selection, keeps the default, so `all: on` never silently removes a
 * safety check. `ask` cannot revive an absent tool: the floor comes first.
 */
export function resolveAvailability(
  registry: ToolRegistry,
  scopes: ScopeStack,
  intent: Intent,
  capabilities: Capabilities,
  policy: AvailabilityPolicy = {},
): Resolution {
  const tools = registry.list();
  const toolsets = policy.toolsets ?? BUILTIN_TOOLSETS;
  const warnings = policy.warnings ?? new WarnOnce();
  const layers = layersOf(scopes, intent, policy.agent);
  warnUnknownKeys(layers, registry, warnings);

  const { selected, selection } = select(tools, layers, intent, toolsets, registry, warnings);
  const mode = layers.find((l) => l.layer.mode !== undefined)?.layer.mode ?? "default";

  const states = new Map<string, ToolState>();
  for (const tool of tools) {
    states.set(tool.id, decide(tool, layers, capabilities, selected, selection));
  }
  return {
    states,
    mode,
    selection,
    essential: new Set(policy.essential ?? DEFAULT_ESSENTIAL),
    layers,
  };
}

function decide(
  tool: AnyTool,
  layers: readonly NamedLayer[],
  capabilities: Capabilities,
  selected: ReadonlySet<string>,
  selection: Decider,
): ToolState {
  if (tool.capability !== undefined) {
    const status = capabilityStatus(capabilities, tool.capability);
    if (!status.available) {
      return { id: tool.id, status: "absent", capability: tool.capability, reason: status.reason };
    }
  }
  const keys = keysOf(tool);
  for (const { scope, layer, agent } of layers) {
    const mentioned = layer.keys;
    if (!mentioned) continue;
    for (const key of keys) {
      // Own keys only: a tool named "constructor" is not mentioned by every layer.
      const value = Object.hasOwn(mentioned, key) ? mentioned[key] : undefined;
      if (value === undefined) continue;
      const by: Decider = { kind: "scope", scope, key, ...(agent !== undefined ? { agent } : {}) };
      if (value === false) return { id: tool.id, status: "disabled", by };
      const standing = key === tool.id;
      if (value === ASK) return { id: tool.id, status: "enabled", by, standing, ask: by };
      // A person's `on` for the tool itself or its family lifts its own ask default.
      const lifted = key === tool.id || key === tool.family;
      return withDefault(tool, { id: tool.id, status: "enabled", by, standing }, lifted);
    }
  }
  return selected.has(tool.id)
    ? withDefault(tool, { id: tool.id, status: "enabled", by: selection, standing: false }, false)
    : { id: tool.id, status: "disabled", by: selection };
}

type Enabled = Extract<ToolState, { status: "enabled" }>;

/** The tool's own `approval: "ask"`, unless a person's explicit `on` lifted it. */
function withDefault(tool: AnyTool, state: Enabled, lifted: boolean): Enabled {
  return tool.approval === ASK && !lifted ? { ...state, ask: { kind: "tool" } } : state;
}

function select(
  tools: readonly AnyTool[],
  layers: readonly NamedLayer[],
  intent: Intent,
  toolsets: Toolsets,
  registry: ToolRegistry,
  warnings: WarnOnce,
): { selected: ReadonlySet<string>; selection: Decider } {
  // A runtime toolset is deeper than the conversation's pick; otherwise the pick wins.
  const runtimeToolset = layers.find((l) => l.scope === "runtime")?.layer.toolset;
  if (intent.picked !== null && runtimeToolset === undefined) {
    for (const id of intent.picked) {
      if (!registry.has(id) && !id.startsWith("mcp__")) {
        warnings.warn(
          `picked:${id}`,
          `A hand-picked tool list names "${id}", which no registered tool has; it is ignored.`,
        );
      }
    }
    return { selected: new Set(intent.picked), selection: { kind: "picked" } };
  }
  let name = layers.find((l) => l.layer.toolset !== undefined)?.layer.toolset ?? "default";
  if (!Object.hasOwn(toolsets, name)) {
    warnings.warn(
      `toolset:${name}`,
      `Toolset "${name}" is not defined (was it removed from the config?); using "default" instead. Known toolsets: ${Object.keys(toolsets).sort().join(", ")}.`,
    );
    name = "default";
  }
  const { ids, unmatched } = expandToolset(toolsets, name, tools);
  for (const entry of unmatched) {
    if (isStructuralKey(entry) || entry.startsWith("mcp__")) continue;
    warnings.warn(
      `toolset-entry:${entry}`,
      `Toolset "${name}" names "${entry}", which matches no registered tool or family; it is ignored.`,
    );
  }
  return { selected: ids, selection: { kind: "toolset", toolset: name } };
}

function warnUnknownKeys(
  layers: readonly NamedLayer[],
  registry: ToolRegistry,
  warnings: WarnOnce,
): void {
  let families: Set<string> | undefined;
  for (const { scope, layer } of layers) {
    for (const key of Object.keys(layer.keys ?? {})) {
      if (isStructuralKey(key) || registry.has(key) || key.startsWith("mcp__")) continue;
      families ??= new Set(registry.families());
      if (families.has(key)) continue;
      warnings.warn(
        `key:${key}`,
        `Unknown tool "${key}" in the ${scope} scope is ignored. Check the spelling against \`switchyard tools\` or /tools.`,
      );
    }
  }
}

/** One scope's mention of a key that bears on a tool. */
export interface Mention {
  readonly scope: ScopeName;
  readonly key: string;
  readonly value: KeyValue;
}

export interface Explanation {
  readonly id: string;
  /** `unknown` when no registered tool has the id. */
  readonly state: ToolState | { readonly id: string; readonly status: "unknown" };
  /** Every mention of the tool's keys, deepest scope first, most specific key first. */
  readonly chain: readonly Mention[];
  /** One line for people: what decided and why. */
  readonly summary: string;
  /** The agent whose base intent was a layer of the stack; absent for the default agent. */
  readonly agent?: string;
}

/** Why a tool is in the state it is in, for `/tools why <id>`. */
export function explain(resolution: Resolution, registry: ToolRegistry, id: string): Explanation {
  const tool = registry.get(id);
  const state = resolution.states.get(id);
  if (!tool || !state) {
    return {
      id,
      state: { id, status: "unknown" },
      chain: [],
      summary: `${id}: no such tool. \`/tools\` lists the tools this bot has.`,
    };
  }
  const keys = keysOf(tool);
  const chain: Mention[] = [];
  for (const { scope, layer } of resolution.layers) {
    for (const key of keys) {
      const value = layer.keys && Object.hasOwn(layer.keys, key) ? layer.keys[key] : undefined;
      if (value !== undefined) chain.push({ scope, key, value });
    }
  }
  const agent = resolution.layers.find((l) => l.scope === "agent")?.agent;
  return {
    id,
    state,
    chain,
    summary: `${id}: ${describeState(state)}`,
    ...(agent !== undefined ? { agent } : {}),
  };
}

export function describeDecider(by: Decider): string {
  switch (by.kind) {
    case "scope": {
      const scope = by.agent !== undefined ? `agent ${by.agent}'s` : `${by.scope} scope`;
      return by.key === "all" ? `${scope} (all tools)` : `${scope} (${by.key})`;
    }
    case "toolset":
      return `toolset ${by.toolset}`;
    case "picked":
      return "the hand-picked tool list";
    case "tool":
      return "the tool's own default";
  }
}

export function describeState(state: ToolState): string {
  switch (state.status) {
    case "absent":
      return `unavailable: ${state.reason}`;
    case "enabled":
      if (state.ask === undefined) return `on, decided by ${describeDecider(state.by)}`;
      if (state.ask.kind === "tool") {
        return `on, decided by ${describeDecider(state.by)}; asks first: the tool's own default (approval: ask), which /tools on ${state.id} lifts`;
      }
      return `${keyWord(ASK)} (on, each call waits for a person's approval), decided by ${describeDecider(state.ask)}`;
    case "disabled":
      return state.by.kind === "scope"
        ? `off, decided by ${describeDecider(state.by)}`
        : `off, not in ${describeDecider(state.by)}`;
  }
}
