import { attachmentNotice } from "../../core/attachments/capability-notice.ts";
import {
  type Actor,
  type CommandPolicy,
  missingFamilies,
  planToolsText,
  renderText,
  type ToolsPlan,
} from "../../core/commands/index.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import {
  type ContractSources,
  conversationCapabilities,
  freezeState,
  readConversationState,
} from "../../turn/contract.ts";

export interface ToolsCommandResult {
  readonly plan: ToolsPlan;
  /** Plain text for text-only channels (the console, `!tools` replies). */
  readonly text: string;
}

/**
 * `/tools` for any channel: freezes the conversation's contract as it stands
 * (so the list shows what the next turn would get), plans the command, and
 * applies a change to the conversation's intent or the shared scope in Redis.
 * Changes apply from the next turn; a turn in progress keeps its contract.
 */
export async function handleToolsCommand(
  text: string,
  where: ConversationAddress,
  actor: Actor,
  policy: CommandPolicy,
  sources: ContractSources,
): Promise<ToolsCommandResult> {
  const config = sources.config();
  const state = await readConversationState(sources, where);
  // The conversation's model decides `vision`: the list shows what its next turn would get.
  const capabilities = conversationCapabilities(sources, where, state);
  const contract = freezeState(sources, where, state);
  const plan = planToolsText(text, {
    actor,
    policy,
    registry: sources.registry,
    toolsets: config.toolsets,
    contract,
    notices: [...missingFamilies(capabilities, sources.registry), attachmentNotice(capabilities)],
  });
  if (plan.kind === "reply") return { plan, text: renderText(plan.view) };
  if (plan.kind === "change" && plan.scope === "conversation") {
    await sources.store.intent.apply(where, plan.change);
  } else if (plan.kind === "change") {
    await sources.store.scopes.apply(plan.scope, where, plan.change);
  }
  return { plan, text: plan.reply };
}
