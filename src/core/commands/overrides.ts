import { ASK, type KeyValue, keysOf, keyWord } from "../availability/keys.ts";
import type { NamedLayer, Resolution } from "../availability/resolve.ts";
import { type ChatScope, SCOPES, type ScopeName } from "../availability/scopes.ts";
import type { ToolRegistry } from "../tools/registry.ts";

/**
 * After a change at one scope, what still decides otherwise: a deeper scope
 * that mentions the tool, or a more specific key in the same scope. The
 * reply says so, so nobody turns a tool on for the channel and wonders why
 * this conversation still has it off.
 */

/** One tool the change does not reach, and what holds it. */
export interface Override {
  readonly id: string;
  readonly scope: ScopeName;
  readonly key: string;
  readonly value: KeyValue;
}

const LISTED = 5;

/** Tools whose state `key=value` at `scope` would not decide, from the layers before the change. */
export function keyOverrides(
  resolution: Resolution,
  registry: ToolRegistry,
  scope: ChatScope,
  key: string,
  value: KeyValue,
): { covered: number; overrides: Override[] } {
  let covered = 0;
  const overrides: Override[] = [];
  for (const tool of registry.list()) {
    const keys = keysOf(tool);
    const at = keys.indexOf(key);
    if (at < 0 || resolution.states.get(tool.id)?.status === "absent") continue;
    covered++;
    const holder = firstMention(resolution.layers, scope, keys, at);
    if (holder && holder.value !== value) overrides.push({ id: tool.id, ...holder });
  }
  return { covered, overrides };
}

/**
 * What still decides `tool` after a change of `key` at `scope`: a deeper
 * scope's mention of any of its keys, or a more specific key in the same
 * scope; undefined when the change decides it.
 */
export function decidingOver(
  resolution: Resolution,
  tool: Parameters<typeof keysOf>[0],
  scope: ChatScope,
  key: string,
): Omit<Override, "id"> | undefined {
  const keys = keysOf(tool);
  const at = keys.indexOf(key);
  return at < 0 ? undefined : firstMention(resolution.layers, scope, keys, at);
}

function firstMention(
  layers: readonly NamedLayer[],
  scope: ChatScope,
  keys: readonly string[],
  at: number,
): Omit<Override, "id"> | undefined {
  const depth = SCOPES.indexOf(scope);
  for (const { scope: layerScope, layer } of layers) {
    const layerDepth = SCOPES.indexOf(layerScope);
    if (layerDepth < depth) break;
    if (!layer.keys) continue;
    // In the changed scope itself only keys more specific than the changed one still decide.
    const candidates = layerDepth === depth ? keys.slice(0, at) : keys;
    for (const candidate of candidates) {
      if (Object.hasOwn(layer.keys, candidate)) {
        return { scope: layerScope, key: candidate, value: layer.keys[candidate] as KeyValue };
      }
    }
  }
  return undefined;
}

/** A sentence saying what the change does not reach; "" when it reaches everything. */
export function keyOverrideNote(
  key: string,
  scope: ChatScope,
  covered: number,
  overrides: readonly Override[],
): string {
  const [first] = overrides;
  if (first === undefined) return "";
  const state = stateWord(first.value);
  if (covered === 1 && first.id === key) {
    const undo =
      first.scope === "conversation" && scope !== "conversation" && first.key !== "all"
        ? ` /tools reset ${first.key} lets the ${scope} scope decide.`
        : "";
    const said = keyWord(first.value);
    return `But ${holder(first.scope)} has it ${state} (${first.key}=${said}), which wins here, so it stays ${state}.${undo}`;
  }
  const listed = overrides
    .slice(0, LISTED)
    .map((o) => `${o.id} (${o.scope}: ${o.key}=${keyWord(o.value)})`);
  const more = overrides.length > LISTED ? `, and ${overrides.length - LISTED} more` : "";
  return `But ${overrides.length} of the ${covered} tools it covers are still decided by a deeper or more specific setting: ${listed.join(", ")}${more}.`;
}

/** The deepest layer below `scope` that sets a field, if any. */
export function deeperSetting<F extends "mode" | "toolset">(
  resolution: Resolution,
  scope: ChatScope,
  field: F,
): { scope: ScopeName; value: NonNullable<NamedLayer["layer"][F]> } | undefined {
  const depth = SCOPES.indexOf(scope);
  for (const { scope: layerScope, layer } of resolution.layers) {
    if (SCOPES.indexOf(layerScope) <= depth) break;
    const value = layer[field];
    if (value !== undefined)
      return { scope: layerScope, value: value as NonNullable<typeof value> };
  }
  return undefined;
}

/** Who holds a setting, as the reply names it. */
export function holder(scope: ScopeName): string {
  switch (scope) {
    case "runtime":
      return "the bot's startup setting (--tools or SWITCHYARD_TOOLS)";
    case "global":
      return "the global scope";
    default:
      return `this ${scope}`;
  }
}

/** "on", "off", "set to ask": a key's value as a reply's sentence says it. */
export function stateWord(value: KeyValue): string {
  return value === ASK ? "set to ask" : keyWord(value);
}
