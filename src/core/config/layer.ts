import type { ScopeLayer } from "../availability/scopes.ts";
import type { SwitchyardConfig } from "./schema.ts";

/** The global scope, the shallowest layer: what the config file decides. */
export function globalLayer(config: SwitchyardConfig): ScopeLayer {
  const { mode, toolset } = config.agent;
  return {
    keys: config.tools,
    ...(toolset !== undefined ? { toolset } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}
