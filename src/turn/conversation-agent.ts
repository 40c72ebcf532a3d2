import {
  type AgentChoice,
  agentsOf,
  type ChatBindings,
  resolveAgent,
} from "../core/agents/index.ts";
import { accountBindings } from "../core/config/bindings-section.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { StoredSettings } from "../store/index.ts";

/**
 * The agent that answers a conversation: the config's `bindings:` and what
 * `/agent` stored for its workspace, channel and conversation, deepest
 * winning (see resolveAgent). Read at the turn boundary with the rest of the
 * conversation's state, so a switch takes effect at the next turn.
 */
export function conversationAgent(
  config: SwitchyardConfig,
  address: ConversationAddress,
  settings: StoredSettings,
): AgentChoice {
  const bindings = [...(config.bindings ?? []), ...accountBindings(config)];
  return resolveAgent(agentsOf(config), address, bindings, chatBindingsOf(settings));
}

/** The bindings `/agent` stored, from the chat settings of a conversation's places. */
export function chatBindingsOf(settings: StoredSettings): ChatBindings {
  const bound: Record<string, string> = {};
  const { conversation, channel, workspace } = settings;
  if (workspace?.agent !== undefined) bound.workspace = workspace.agent;
  if (channel.agent !== undefined) bound.channel = channel.agent;
  if (conversation.agent !== undefined) bound.conversation = conversation.agent;
  return bound;
}
