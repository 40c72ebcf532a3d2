import { BINDING_SCOPES, type BindingScope } from "../availability/scopes.ts";
import type { BindingConfig } from "../config/bindings-section.ts";
import type { ConversationAddress } from "../conversation.ts";
import { type AgentDefinition, DEFAULT_AGENT, IMPLICIT_DEFAULT } from "./agent.ts";

/**
 * Where a binding applies, shallow to deep: a bot account (config only),
 * then the scopes of the one scope table that name a place (workspace,
 * channel, conversation). Deepest wins.
 */
export type AgentBindingScope = "account" | BindingScope;
export const AGENT_BINDING_SCOPES: readonly AgentBindingScope[] = ["account", ...BINDING_SCOPES];

/**
 * A binding from the config's `bindings:`: `agent` answers wherever `target`
 * names, written `platform:id` like every other place in the config
 * (`slack:T0123`, `telegram:support_bot`).
 */
export type AgentBinding = BindingConfig;

/** Bindings made from chat (`/agent <id> [scope]`), as stored for one conversation's places. */
export type ChatBindings = Readonly<Partial<Record<BindingScope, string>>>;

/** Why an agent answers: the binding that decided, or none (the default agent). */
export type AgentDecider =
  | {
      readonly kind: "binding";
      readonly scope: AgentBindingScope;
      /** `config` for the file's `bindings:`, `chat` for `/agent`. */
      readonly from: "config" | "chat";
    }
  | { readonly kind: "default" };

export interface AgentChoice {
  readonly agent: AgentDefinition;
  readonly by: AgentDecider;
  /** Bindings that name an agent the config no longer has: skipped, shallower ones decide. */
  readonly skipped: readonly { readonly scope: AgentBindingScope; readonly agent: string }[];
}

/** The place a scope names for an address, as config bindings write it; undefined where it names none. */
export function bindingTarget(
  scope: AgentBindingScope,
  address: ConversationAddress,
): string | undefined {
  switch (scope) {
    case "account":
      return address.account === undefined ? undefined : `${address.platform}:${address.account}`;
    case "workspace":
      return `${address.platform}:${address.workspace}`;
    case "channel":
      return `${address.platform}:${address.channel}`;
    case "conversation":
      return undefined;
  }
}

/**
 * Which agent answers a conversation. Per scope, deepest first, a chat
 * binding over a config binding of the same scope; the first that names a
 * known agent decides. No binding (or only stale ones): the default agent,
 * the config's top-level settings.
 *
 * @example
 * resolveAgent(agents, address, [{ agent: "support", scope: "channel", target: "slack:C0HELP" }], {});
 * // { agent: support, by: { kind: "binding", scope: "channel", from: "config" } }
 */
export function resolveAgent(
  agents: ReadonlyMap<string, AgentDefinition>,
  address: ConversationAddress,
  config: readonly AgentBinding[],
  chat: ChatBindings,
): AgentChoice {
  const skipped: { scope: AgentBindingScope; agent: string }[] = [];
  for (const scope of [...AGENT_BINDING_SCOPES].reverse()) {
    const target = bindingTarget(scope, address);
    const candidates: { agent: string; from: "config" | "chat" }[] = [];
    if (scope !== "account") {
      const stored = chat[scope];
      if (stored !== undefined) candidates.push({ agent: stored, from: "chat" });
    }
    if (target !== undefined) {
      for (const binding of config) {
        if (binding.scope === scope && binding.target === target) {
          candidates.push({ agent: binding.agent, from: "config" });
        }
      }
    }
    for (const { agent: id, from } of candidates) {
      const agent = agents.get(id) ?? (id === DEFAULT_AGENT ? IMPLICIT_DEFAULT : undefined);
      if (agent === undefined) {
        skipped.push({ scope, agent: id });
        continue;
      }
      return { agent, by: { kind: "binding", scope, from }, skipped };
    }
  }
  return { agent: agents.get(DEFAULT_AGENT) ?? IMPLICIT_DEFAULT, by: { kind: "default" }, skipped };
}

/** One line for people: why this agent answers here, for `/agent`. */
export function describeAgentChoice(choice: AgentChoice): string {
  const { agent, by } = choice;
  const who = agent.name === agent.id ? agent.id : `${agent.name} (${agent.id})`;
  if (by.kind === "default") {
    return `${who} answers here: no binding picks another agent, so the config's own settings answer.`;
  }
  const where = by.scope === "account" ? "bot account" : by.scope;
  const how =
    by.from === "config" ? `the config's bindings: for this ${where}` : `/agent for this ${where}`;
  return `${who} answers here, bound by ${how}.`;
}
