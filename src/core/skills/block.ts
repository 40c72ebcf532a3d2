import { estimateTokens } from "../budget/estimate.ts";
import { compare } from "./resolve.ts";
import type { Skill } from "./skill.ts";

/** What the block needs of a skill. */
export type SkillLine = Pick<Skill, "name" | "key" | "description">;

/** The longest description the block shows, in characters; longer ones are cut with "…". */
export const SUMMARY_MAX = 100;

/** Fixed text above the skill lines; it costs the same whatever the number of skills. */
export const SKILLS_BLOCK_HEADER =
  "## Skills\nInstructions for particular tasks. When a request matches a skill, call the skill tool with its name to load its instructions before you answer.";

/**
 * A description as the block shows it: one line (newlines and runs of
 * whitespace become one space) of at most {@link SUMMARY_MAX} characters,
 * cut at a word where one is near.
 */
export function skillSummary(description: string): string {
  const line = description.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim();
  if (line.length <= SUMMARY_MAX) return line;
  const cut = line.slice(0, SUMMARY_MAX - 1);
  const space = cut.lastIndexOf(" ");
  const end = space >= SUMMARY_MAX * 0.6 ? cut.slice(0, space) : cut;
  return `${end.replace(/[\s,;:.-]+$/, "")}…`;
}

/**
 * The system prompt's skills block: the header, then `- name: description`
 * per enabled skill, sorted by key. Deterministic bytes (rule 2): the same
 * skills in any order give the same string, so the prompt stays cached until
 * people switch a skill. No skills, no block (the empty string).
 *
 * @example
 * skillsBlock(resolution.enabled);
 * // "## Skills\nInstructions for ...\n- bot-guide: How to use this bot: ...\n- meeting-notes: ..."
 */
export function skillsBlock(skills: readonly SkillLine[]): string {
  const lines = skillLines(skills);
  return lines.length === 0 ? "" : [SKILLS_BLOCK_HEADER, ...lines].join("\n");
}

/** What the block costs, for `switchyard skills` and the budget: estimated tokens. */
export interface SkillsBlockCost {
  readonly total: number;
  readonly header: number;
  readonly skills: number;
  /** Tokens of the skill lines per skill; 0 with no skills. */
  readonly perSkill: number;
}

export function skillsBlockCost(skills: readonly SkillLine[]): SkillsBlockCost {
  const lines = skillLines(skills);
  if (lines.length === 0) return { total: 0, header: 0, skills: 0, perSkill: 0 };
  const header = estimateTokens(`${SKILLS_BLOCK_HEADER}\n`);
  const total = estimateTokens(skillsBlock(skills));
  const cost = total - header;
  return { total, header, skills: cost, perSkill: cost / lines.length };
}

function skillLines(skills: readonly SkillLine[]): string[] {
  const sorted = [...skills].sort(
    (a, b) =>
      compare(a.key, b.key) || compare(a.name, b.name) || compare(a.description, b.description),
  );
  const lines: string[] = [];
  let previous: string | undefined;
  for (const skill of sorted) {
    // One line per name even if a caller passes two skills of one key: the first in sort order.
    if (skill.key === previous) continue;
    previous = skill.key;
    lines.push(`- ${skill.name}: ${skillSummary(skill.description)}`);
  }
  return lines;
}
