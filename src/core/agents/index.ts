import type { SwitchyardConfig } from "../config/schema.ts";
import { type AgentDefinition, DEFAULT_AGENT, IMPLICIT_DEFAULT } from "./agent.ts";

export { type AgentDefinition, agentLayer, DEFAULT_AGENT, IMPLICIT_DEFAULT } from "./agent.ts";
export {
  AGENT_BINDING_SCOPES,
  type AgentBinding,
  type AgentBindingScope,
  type AgentChoice,
  type AgentDecider,
  bindingTarget,
  type ChatBindings,
  describeAgentChoice,
  resolveAgent,
} from "./bindings.ts";
export { AGENT_USAGE, type AgentCommand, parseAgentCommand } from "./command.ts";
export {
  ASK_AGENT_ID,
  budgetedProvider,
  CHILD_BLOCK,
  childAnswer,
  childPath,
  DEFAULT_DELEGATION,
  DELEGATION_CAPABILITY,
  type DelegationLimits,
  delegatesBlock,
  delegationLimits,
  delegationStatus,
  MAX_CHILD_ANSWER,
  refuseDelegation,
  tokensOf,
} from "./delegation.ts";

/**
 * The config's agents by id, the implicit `default` (the top-level settings,
 * with the `agent:` section's `delegates:`) first. Memoized per config
 * object: a reload makes a new config, and a turn asks once per boundary.
 */
export function agentsOf(config: SwitchyardConfig): ReadonlyMap<string, AgentDefinition> {
  let agents = BOOKS.get(config);
  if (agents === undefined) {
    const book = new Map<string, AgentDefinition>([[DEFAULT_AGENT, defaultAgent(config)]]);
    for (const agent of config.agents ?? []) book.set(agent.id, agent);
    BOOKS.set(config, book);
    agents = book;
  }
  return agents;
}

/** Whether any agent of the config, `default` included, may ask another: only then is there `ask_agent`. */
export function delegatesAnywhere(config: SwitchyardConfig): boolean {
  for (const agent of agentsOf(config).values()) if (agent.delegates?.length) return true;
  return false;
}

function defaultAgent(config: SwitchyardConfig): AgentDefinition {
  const { delegates, delegation } = config.agent;
  if (delegates === undefined && delegation === undefined) return IMPLICIT_DEFAULT;
  return Object.freeze({
    ...IMPLICIT_DEFAULT,
    ...(delegates !== undefined ? { delegates } : {}),
    ...(delegation !== undefined ? { delegation } : {}),
  });
}

const BOOKS = new WeakMap<SwitchyardConfig, ReadonlyMap<string, AgentDefinition>>();
