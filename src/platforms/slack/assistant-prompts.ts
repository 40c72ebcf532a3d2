import type { Skill } from "../../core/skills/skill.ts";
import {
  MAX_SUGGESTED_PROMPTS,
  type PromptSet,
  type SlackAssistantConfig,
  type SuggestedPrompt,
} from "./assistant-config.ts";

/** A prompt's title is a button: long ones are cut at a word, with an ellipsis. */
const TITLE_CHARS = 40;
/** How much of a skill's description its prompt carries. */
const DESCRIPTION_CHARS = 200;

/** What a bot with no skills and no configured prompts offers. */
export const FALLBACK_PROMPTS: readonly SuggestedPrompt[] = Object.freeze([
  { title: "What can you do?", message: "What can you help me with?" },
]);

/**
 * The suggested prompts for a pane thread, deepest wins: those configured
 * for the channel the person is looking at, else for their workspace, else
 * everywhere (`slack.assistant`); with none configured, one per enabled
 * skill (at most four, in the skills' order), else {@link FALLBACK_PROMPTS}.
 *
 * @example
 * suggestedPrompts(undefined, { workspace: "T1" }, [
 *   { name: "pdf-summary", description: "Summarizes a PDF. Use for reports." },
 * ]);
 * // { prompts: [{ title: "pdf-summary",
 * //   message: "Use the pdf-summary skill: Summarizes a PDF." }] }
 */
export function suggestedPrompts(
  config: SlackAssistantConfig | undefined,
  where: { readonly workspace: string; readonly channel?: string },
  skills: readonly Pick<Skill, "name" | "description">[],
): PromptSet {
  const configured =
    (where.channel ? config?.channels[where.channel] : undefined) ??
    config?.workspaces[where.workspace] ??
    (config?.prompts ? { prompts: config.prompts } : undefined);
  const title = configured?.title ?? config?.title;
  const prompts =
    configured && configured.prompts.length > 0
      ? configured.prompts
      : skills.length > 0
        ? skills.slice(0, MAX_SUGGESTED_PROMPTS).map(skillPrompt)
        : FALLBACK_PROMPTS;
  return { prompts: prompts.slice(0, MAX_SUGGESTED_PROMPTS), ...(title ? { title } : {}) };
}

/** A skill as a prompt: its name on the button, and a message that asks for it by name. */
export function skillPrompt(skill: Pick<Skill, "name" | "description">): SuggestedPrompt {
  const what = firstSentence(skill.description);
  return {
    title: cut(skill.name, TITLE_CHARS),
    message: what ? `Use the ${skill.name} skill: ${what}` : `Use the ${skill.name} skill.`,
  };
}

/** The description's first sentence, on one line, at most {@link DESCRIPTION_CHARS}. */
function firstSentence(description: string): string {
  const line = description.replace(/\s+/g, " ").trim();
  const end = /[.!?](\s|$)/.exec(line);
  return cut(end ? line.slice(0, end.index + 1) : line, DESCRIPTION_CHARS);
}

/** `text` in at most `max` characters, cut at a space where one is near, with an ellipsis. */
export function cut(text: string, max: number): string {
  const chars = [...text.trim()];
  if (chars.length <= max) return chars.join("");
  const head = chars.slice(0, max - 1).join("");
  const space = head.lastIndexOf(" ");
  return `${(space >= max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}
