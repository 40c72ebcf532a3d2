import type { Actor, CommandPolicy } from "../../core/commands/index.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import {
  planSkillInvocation,
  planSkillsText,
  reloadReply,
  renderSkillsText,
  type SkillInvocationPlan,
  type SkillResolution,
  type SkillsPlan,
} from "../../core/skills/index.ts";
import {
  type ContractSources,
  readConversationState,
  resolveConversationSkills,
} from "../../turn/contract.ts";

/** A skill library that can be re-read on request (`/skills reload`). */
export interface ReloadableSkills {
  reload(): Promise<boolean>;
  problems(): string[];
}

async function currentSkills(
  sources: ContractSources,
  where: ConversationAddress,
): Promise<SkillResolution> {
  return resolveConversationSkills(sources, where, await readConversationState(sources, where));
}

/**
 * `/skills` for any channel: plans the command against this channel's skills
 * and writes a toggle change to the shared scope in Redis. Changes apply from
 * the next turn.
 */
export async function handleSkillsCommand(
  text: string,
  where: ConversationAddress,
  actor: Actor,
  policy: CommandPolicy,
  sources: ContractSources,
  library?: ReloadableSkills,
): Promise<{ plan: SkillsPlan; text: string }> {
  const resolution = await currentSkills(sources, where);
  const plan = planSkillsText(text, { actor, policy, resolution });
  if (plan.kind === "reload")
    return { plan, text: await reload(resolution, where, sources, library) };
  if (plan.kind === "reply") return { plan, text: renderSkillsText(plan.view) };
  if (plan.kind === "change") {
    const { scope } = plan;
    for (const { name, value } of plan.changes) {
      await sources.store.scopes.applySkill(scope, where, name, value);
    }
  }
  return { plan, text: plan.reply };
}

/** `/skills reload`: re-reads the folders and says what changed. */
async function reload(
  before: SkillResolution,
  where: ConversationAddress,
  sources: ContractSources,
  library: ReloadableSkills | undefined,
): Promise<string> {
  if (!library) return "This bot has no skill folders to reload.";
  await library.reload();
  const after = await currentSkills(sources, where);
  return reloadReply(before, after, library.problems());
}

/**
 * `/skill <name> [request]`: the skill's instructions and the request become
 * the turn's message; a disabled or unknown skill is refused on the spot,
 * naming the scope that turned it off.
 */
export async function planSkillCommand(
  text: string,
  where: ConversationAddress,
  sources: ContractSources,
): Promise<SkillInvocationPlan> {
  return planSkillInvocation(text, await currentSkills(sources, where));
}
