import type { AgentDefinition } from "../core/agents/index.ts";
import { type ModelsConfig, modelFor } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { StoredSettings } from "../store/index.ts";

/**
 * The model a conversation's turns run on: its `/model` choice (the
 * conversation's, else its channel's), else the model of the agent that
 * answers it, else the config's channel or workspace mapping; undefined
 * means the bot's own model. One home for the turn (its request and price),
 * `/model` and the `vision` capability.
 */
export function conversationModel(
  models: ModelsConfig,
  address: ConversationAddress,
  settings: StoredSettings,
  agent?: AgentDefinition,
): string | undefined {
  return modelFor(models, address, [
    settings.conversation.model,
    settings.channel.model,
    agent?.model,
  ]);
}
