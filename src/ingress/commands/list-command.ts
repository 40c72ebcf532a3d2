import type { Actor } from "../../core/commands/index.ts";
import {
  type ListName,
  type ListPanel,
  skillsPanel,
  toolsPanel,
} from "../../core/commands/panel.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { ChannelRuntime } from "../channel.ts";
import { handleSkillsCommand } from "./skills-command.ts";
import { handleToolsCommand } from "./tools-command.ts";

/** What a `/tools` or `/skills` command answered, as a platform's list UI needs it. */
export interface ListAnswer {
  /** The reply, the refusal or the view, as plain text. */
  readonly text: string;
  readonly refused: boolean;
  /** The list, when the answer is the list. */
  readonly panel?: ListPanel;
  /** The scope a skills change touched ("global" for a reload), for menus that list the skills. */
  readonly skillsChanged?: string;
}

/**
 * Runs a typed `/tools` or `/skills` command (a click is the command it
 * stands for) with the permissions the config has now, and hands back the
 * list as a channel-neutral panel for the platform to render.
 *
 * @example
 * const answer = await answerListCommand("tools", "/tools off web_search channel", where, actor, runtime);
 * send(answer.panel ? render(answer.panel) : answer.text);
 */
export async function answerListCommand(
  list: ListName,
  text: string,
  where: ConversationAddress,
  actor: Actor,
  runtime: Pick<ChannelRuntime, "sources" | "permissions" | "skills">,
): Promise<ListAnswer> {
  const policy = runtime.permissions();
  if (list === "tools") {
    const { plan, text: said } = await handleToolsCommand(
      text,
      where,
      actor,
      policy,
      runtime.sources,
    );
    const view = plan.kind === "reply" ? plan.view : undefined;
    return {
      text: said,
      refused: plan.kind === "refused",
      ...(view?.kind === "list" ? { panel: toolsPanel(view) } : {}),
    };
  }
  const { sources, skills } = runtime;
  const { plan, text: said } = await handleSkillsCommand(
    text,
    where,
    actor,
    policy,
    sources,
    skills,
  );
  const view = plan.kind === "reply" ? plan.view : undefined;
  const changed =
    plan.kind === "change" ? plan.scope : plan.kind === "reload" ? "global" : undefined;
  return {
    text: said,
    refused: plan.kind === "refused",
    ...(view?.kind === "list" ? { panel: skillsPanel(view) } : {}),
    ...(changed !== undefined ? { skillsChanged: changed } : {}),
  };
}
