import fc from "fast-check";
import type { Capabilities, CapabilityStatus } from "../../src/core/availability/capabilities.ts";
import {
  EMPTY_INTENT,
  type Intent,
  type KeySwitch,
  mount,
  pick,
  reset,
  type Switch,
  setKey,
  setMode,
  setToolset,
  setWebSearch,
} from "../../src/core/availability/intent.ts";
import type { KeyValue } from "../../src/core/availability/keys.ts";
import type { ScopeLayer, ScopeStack } from "../../src/core/availability/scopes.ts";
import { freezeTurn, type TurnContract } from "../../src/core/loading/freeze.ts";
import { LOAD_MODES, type LoadMode } from "../../src/core/loading/modes.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import { BUILTIN_TOOLSETS, defineToolsets, type Toolsets } from "../../src/core/tools/toolsets.ts";
import { tool } from "./tools.ts";

/**
 * A fixed universe of tool ids. A generated registry holds a random subset of
 * them, each with a random `defer` and `capability`, so scope keys, picks and
 * mounts drawn from the same universe sometimes name registered tools and
 * sometimes tools that are not (or no longer) there.
 */
export const POOL: ReadonlyArray<{ readonly id: string; readonly family?: string }> = [
  { id: "web_search" },
  { id: "fetch_url" },
  { id: "current_time" },
  { id: "recall" },
  { id: "remember" },
  { id: "run_python" },
  { id: "generate_image" },
  { id: "calendar_create" },
  { id: "Translate" },
  { id: "weather-now" },
  { id: "notes_add", family: "plugin:notes" },
  { id: "notes_list", family: "plugin:notes" },
  { id: "mcp__github__create_issue", family: "mcp:github" },
  { id: "mcp__github__list_issues", family: "mcp:github" },
  { id: "mcp__github__search_code", family: "mcp:github" },
  { id: "mcp__filesystem__read_file", family: "mcp:filesystem" },
  { id: "mcp__filesystem__write_file", family: "mcp:filesystem" },
  { id: "mcp__slack__post_message", family: "mcp:slack" },
];

export const POOL_IDS: readonly string[] = POOL.map((slot) => slot.id);
export const CAPABILITY_NAMES = ["search_provider", "vision", "python_sandbox"] as const;
export const FAMILIES = ["plugin:notes", "mcp:github", "mcp:filesystem", "mcp:slack"] as const;

/** Every key a scope may mention: pool ids, families, structural keys and a few unknowns. */
export const SCOPE_KEYS: readonly string[] = [
  ...POOL_IDS,
  ...FAMILIES,
  "mcp",
  "all",
  "mcp:ghost",
  "no_such_tool",
];

export const TOOLSET_NAMES = ["default", "full", "research", "basics", "ghost_set"] as const;

/** The optional per-slot variation a registry draws. */
export interface SlotChoice {
  readonly present: boolean;
  readonly defer: boolean;
  readonly capability: (typeof CAPABILITY_NAMES)[number] | undefined;
}

export const slotChoiceArb: fc.Arbitrary<SlotChoice> = fc.record({
  present: fc.boolean(),
  defer: fc.boolean(),
  capability: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...CAPABILITY_NAMES) },
  ),
});

/** The tool a slot becomes under a choice (cached, so equal choices give the same object). */
export function slotTool(index: number, choice: SlotChoice): AnyTool {
  const slot = POOL[index];
  if (!slot) throw new Error(`no pool slot ${index}`);
  return tool(slot.id, {
    defer: choice.defer,
    ...(slot.family ? { family: slot.family } : {}),
    ...(choice.capability ? { capability: choice.capability } : {}),
  });
}

/** A list of tools drawn from the pool, in pool order. */
export const toolsArb: fc.Arbitrary<AnyTool[]> = fc
  .array(slotChoiceArb, { minLength: POOL.length, maxLength: POOL.length })
  .map((choices) =>
    choices.flatMap((choice, index) => (choice.present ? [slotTool(index, choice)] : [])),
  );

export const capabilityStatusArb: fc.Arbitrary<CapabilityStatus | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ available: true } as const) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("the provider is down", "no API key is configured")
      .map((reason) => ({ available: false, reason }) as const),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

export const capabilitiesArb: fc.Arbitrary<Capabilities> = fc
  .tuple(...CAPABILITY_NAMES.map(() => capabilityStatusArb))
  .map((statuses) => {
    const out: Record<string, CapabilityStatus> = {};
    statuses.forEach((status, i) => {
      const name = CAPABILITY_NAMES[i];
      if (status && name) out[name] = status;
    });
    return out;
  });

export const keyArb: fc.Arbitrary<string> = fc.constantFrom(...SCOPE_KEYS);
export const modeArb: fc.Arbitrary<LoadMode> = fc.constantFrom(...LOAD_MODES);

export const layerArb: fc.Arbitrary<ScopeLayer> = fc.record(
  {
    keys: fc.dictionary(keyArb, fc.constantFrom<KeyValue>(true, false, "ask"), { maxKeys: 5 }),
    toolset: fc.constantFrom(...TOOLSET_NAMES),
    mode: modeArb,
  },
  { requiredKeys: ["keys"] },
);

export const scopesArb: fc.Arbitrary<ScopeStack> = fc.record(
  { global: layerArb, workspace: layerArb, channel: layerArb, runtime: layerArb },
  { requiredKeys: [] },
);

const switchArb: fc.Arbitrary<Switch> = fc.constantFrom("on", "off", "follow");
const keySwitchArb: fc.Arbitrary<KeySwitch> = fc.constantFrom("on", "off", "ask", "follow");
const idsArb = fc.array(fc.constantFrom(...POOL_IDS, "retired_tool"), { maxLength: 5 });

/** One change a person (or discovery) makes to a conversation's intent. */
export type IntentOp =
  | { readonly op: "set"; readonly key: string; readonly value: KeySwitch }
  | { readonly op: "reset"; readonly key: string | undefined }
  | { readonly op: "pick"; readonly ids: readonly string[] }
  | { readonly op: "mount"; readonly ids: readonly string[] }
  | { readonly op: "mode"; readonly mode: LoadMode | null }
  | { readonly op: "toolset"; readonly toolset: string | null }
  | { readonly op: "webSearch"; readonly value: Switch };

export const intentOpArb: fc.Arbitrary<IntentOp> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("set" as const), key: keyArb, value: keySwitchArb }),
  },
  fc.record({
    op: fc.constant("reset" as const),
    key: fc.option(keyArb, { nil: undefined }),
  }),
  fc.record({ op: fc.constant("pick" as const), ids: idsArb }),
  { weight: 2, arbitrary: fc.record({ op: fc.constant("mount" as const), ids: idsArb }) },
  fc.record({ op: fc.constant("mode" as const), mode: fc.option(modeArb, { nil: null }) }),
  fc.record({
    op: fc.constant("toolset" as const),
    toolset: fc.option(fc.constantFrom(...TOOLSET_NAMES), { nil: null }),
  }),
  fc.record({ op: fc.constant("webSearch" as const), value: switchArb }),
);

export function applyOp(intent: Intent, op: IntentOp): Intent {
  switch (op.op) {
    case "set":
      return setKey(intent, op.key, op.value);
    case "reset":
      return reset(intent, op.key);
    case "pick":
      return pick(intent, op.ids);
    case "mount":
      return mount(intent, op.ids);
    case "mode":
      return setMode(intent, op.mode);
    case "toolset":
      return setToolset(intent, op.toolset);
    case "webSearch":
      return setWebSearch(intent, op.value);
  }
}

export const intentOpsArb: fc.Arbitrary<IntentOp[]> = fc.array(intentOpArb, { maxLength: 12 });

/** An intent as people build one: a sequence of commands from the empty intent. */
export const intentArb: fc.Arbitrary<Intent> = intentOpsArb.map((ops) =>
  ops.reduce(applyOp, EMPTY_INTENT),
);

/** Configured toolsets: the built-ins alone, or a curated default with includes. */
export const toolsetsArb: fc.Arbitrary<Toolsets> = fc.constantFrom(
  BUILTIN_TOOLSETS,
  defineToolsets({
    research: { tools: ["web_search", "fetch_url", "mcp:github"], includes: ["basics"] },
    basics: { tools: ["current_time", "recall", "remember"], includes: [] },
  }),
  defineToolsets({
    default: { tools: ["current_time", "plugin:notes", "mcp:*"], includes: [] },
    research: { tools: ["web_search", "Translate"], includes: ["basics"] },
    basics: { tools: ["recall", "not_registered_anywhere"], includes: [] },
  }),
);

export const essentialArb: fc.Arbitrary<readonly string[]> = fc.subarray([...POOL_IDS], {
  maxLength: 4,
});

/** Everything a turn is frozen from. */
export interface World {
  readonly tools: readonly AnyTool[];
  readonly scopes: ScopeStack;
  readonly intent: Intent;
  readonly capabilities: Capabilities;
  readonly toolsets: Toolsets;
  readonly essential: readonly string[];
}

export const worldArb: fc.Arbitrary<World> = fc.record({
  tools: toolsArb,
  scopes: scopesArb,
  intent: intentArb,
  capabilities: capabilitiesArb,
  toolsets: toolsetsArb,
  essential: essentialArb,
});

export function freezeWorld(world: World, registry = new ToolRegistry(world.tools)): TurnContract {
  return freezeTurn(registry, world.scopes, world.intent, world.capabilities, {
    toolsets: world.toolsets,
    essential: world.essential,
    warnings: new WarnOnce(),
  });
}

/** Registry order as given: `order[i]` is the sort key of `tools[i]`. */
export function permute<T>(items: readonly T[], order: readonly number[]): T[] {
  return items
    .map((item, i) => ({ item, key: order[i] ?? 0, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map(({ item }) => item);
}
