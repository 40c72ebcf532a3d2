import type { LoadMode } from "../loading/modes.ts";

/** Shallow to deep. Per key, the deepest scope that mentions it wins. */
export const SCOPES = ["global", "workspace", "channel", "conversation", "runtime"] as const;
export type ScopeName = (typeof SCOPES)[number];

/** The scopes a person can change from chat (runtime is a process flag, global the config file). */
export const CHAT_SCOPES = ["conversation", "channel", "workspace", "global"] as const;
export type ChatScope = (typeof CHAT_SCOPES)[number];

/**
 * One layer of decisions. `keys` maps availability keys to on (`true`) or off:
 * a tool id, a family (`mcp:github`), the aggregate `mcp`, or `all`.
 */
export interface ScopeLayer {
  readonly keys?: Readonly<Record<string, boolean>>;
  readonly toolset?: string;
  readonly mode?: LoadMode;
}

/** Every scope but the conversation's, whose layer comes from its stored intent. */
export interface ScopeStack {
  readonly global?: ScopeLayer;
  readonly workspace?: ScopeLayer;
  readonly channel?: ScopeLayer;
  readonly runtime?: ScopeLayer;
}

export function isScopeName(value: string): value is ScopeName {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * One layer over another of the same scope, the upper winning per key: the
 * global changes owners made from chat over the config file's global layer.
 */
export function overlayLayer(base: ScopeLayer, over: ScopeLayer): ScopeLayer {
  const toolset = over.toolset ?? base.toolset;
  const mode = over.mode ?? base.mode;
  return {
    keys: { ...base.keys, ...over.keys },
    ...(toolset !== undefined ? { toolset } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}
