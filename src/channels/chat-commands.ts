import type { ContractSources } from "../conversation/contract.ts";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import type { Actor, CommandPolicy } from "../core/commands/index.ts";
import { handleAccessCommand } from "./access-command.ts";
import { handleSkillsCommand, planSkillCommand, type ReloadableSkills } from "./skills-command.ts";
import { handleToolsCommand } from "./tools-command.ts";

/** What a line of chat turned out to be. */
export type ChatTextOutcome =
  /** A command, answered on the spot; nothing goes to the model. */
  | { readonly kind: "reply"; readonly text: string }
  /** A message for the model: the text as typed, or a skill's instructions with the request. */
  | { readonly kind: "message"; readonly text: string };

export interface ChatCommandContext {
  readonly sources: ContractSources;
  readonly policy: CommandPolicy;
  readonly skills?: ReloadableSkills;
}

const TOOLS = /^[/!]tools(@\S+)?(\s|$)/i;
const SKILLS = /^[/!]skills(@\S+)?(\s|$)/i;
const SKILL = /^[/!]skill(@\S+)?(\s|$)/i;
const ACCESS = /^[/!]access(@\S+)?(\s|$)/i;

/**
 * Every channel's text commands in one place: `/tools`, `/skills`,
 * `/access` and `/skill <name> [request]` (also with `!`, for where a platform keeps `/`
 * for itself, and with `@BotName` as group chats add it). Anything else is a
 * message for the model.
 */
export async function routeChatText(
  text: string,
  where: ConversationAddress,
  actor: Actor,
  ctx: ChatCommandContext,
): Promise<ChatTextOutcome> {
  const line = text.trim();
  if (TOOLS.test(line)) {
    const result = await handleToolsCommand(line, where, actor, ctx.policy, ctx.sources);
    return { kind: "reply", text: result.text };
  }
  if (SKILLS.test(line)) {
    const reply = await handleSkillsCommand(
      line,
      where,
      actor,
      ctx.policy,
      ctx.sources,
      ctx.skills,
    );
    return { kind: "reply", text: reply.text };
  }
  if (ACCESS.test(line)) {
    const text = await handleAccessCommand(line, actor, ctx.policy, {
      access: ctx.sources.store.access,
      config: ctx.sources.config,
    });
    return { kind: "reply", text };
  }
  if (SKILL.test(line)) {
    const plan = await planSkillCommand(line, where, ctx.sources);
    return plan.kind === "refused"
      ? { kind: "reply", text: plan.reply }
      : { kind: "message", text: plan.text };
  }
  return { kind: "message", text };
}
