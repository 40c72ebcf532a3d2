import { type KeyValue, type KeyWord, keyValueOf } from "../availability/keys.ts";
import type { ChatScope, ScopeLayer } from "../availability/scopes.ts";
import type { LoadMode } from "../loading/modes.ts";

/** The scopes several conversations share; the conversation's own scope lives in its intent. */
export type SharedScope = Exclude<ChatScope, "conversation">;

/**
 * A change to a shared scope's layer (channel, workspace, global), as data,
 * the counterpart of `IntentChange` for a conversation. The store applies it
 * atomically; {@link applyScopeChange} is the reference semantics every store
 * must match.
 */
export type ScopeChange =
  /**
   * Switch one key: a tool id, `mcp:<server>`, `mcp` or `all`. Written as
   * on/off/ask like `IntentChange` and the store's own change, so the shell
   * passes it through unchanged.
   */
  | { readonly kind: "set"; readonly key: string; readonly value: KeyWord }
  /** Forget one key, or with no key the whole layer: keys, toolset and mode. */
  | { readonly kind: "reset"; readonly key?: string }
  /** Choose a toolset, or null to follow the shallower scopes. */
  | { readonly kind: "toolset"; readonly name: string | null }
  /** Choose a load mode, or null to follow. */
  | { readonly kind: "mode"; readonly mode: LoadMode | null };

/** The layer after the change; an empty result is `{}`, which decides nothing. */
export function applyScopeChange(layer: ScopeLayer, change: ScopeChange): ScopeLayer {
  switch (change.kind) {
    case "set":
      return withKeys(layer, { ...layer.keys, [change.key]: keyValueOf(change.value) });
    case "reset": {
      if (change.key === undefined) return {};
      const keys = { ...layer.keys };
      delete keys[change.key];
      return withKeys(layer, keys);
    }
    case "toolset": {
      const { toolset: _old, ...rest } = layer;
      return change.name === null ? rest : { ...rest, toolset: change.name };
    }
    case "mode": {
      const { mode: _old, ...rest } = layer;
      return change.mode === null ? rest : { ...rest, mode: change.mode };
    }
  }
}

/** Sorted keys, and no `keys` at all when none are left, so equal layers store equal bytes. */
function withKeys(layer: ScopeLayer, keys: Record<string, KeyValue>): ScopeLayer {
  const { keys: _old, ...rest } = layer;
  const names = Object.keys(keys).sort();
  if (names.length === 0) return rest;
  // fromEntries, not assignment: a key named "__proto__" stays a key.
  return { ...rest, keys: Object.fromEntries(names.map((name) => [name, keys[name] as KeyValue])) };
}
