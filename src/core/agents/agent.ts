import type { KeyValue } from "../availability/keys.ts";
import type { ScopeLayer } from "../availability/scopes.ts";
import { type AgentConfig, DEFAULT_AGENT } from "../config/agents-section.ts";

export { DEFAULT_AGENT };

/**
 * A named agent of the config's `agents:` list (see agents-section.ts): who
 * answers (persona), on which model, with which tools and skills.
 */
export type AgentDefinition = AgentConfig;

/** The implicit agent of a config without `agents:`, or of a conversation no binding picks. */
export const IMPLICIT_DEFAULT: AgentDefinition = Object.freeze({
  id: DEFAULT_AGENT,
  name: DEFAULT_AGENT,
  tools: Object.freeze({}),
  skills: Object.freeze({}),
});

/**
 * An agent's base intent as a scope layer. The default agent has none: the
 * config's top-level settings are already the global layer, so a config
 * without `agents:` resolves exactly as before.
 */
export function agentLayer(agent: AgentDefinition): ScopeLayer | undefined {
  if (agent.id === DEFAULT_AGENT) return undefined;
  const keys: Record<string, KeyValue> = {};
  if (agent.webSearch !== undefined && agent.webSearch !== "follow") {
    keys.web_search = agent.webSearch === "on";
  }
  Object.assign(keys, agent.tools);
  return {
    keys,
    ...(agent.toolset !== undefined ? { toolset: agent.toolset } : {}),
    ...(agent.mode !== undefined ? { mode: agent.mode } : {}),
  };
}
