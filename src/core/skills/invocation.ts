import { parseSkillInvocation, SkillsCommandError } from "../commands/skills-parse.ts";
import { lookupSkill, skillInvocationText } from "./answers.ts";
import type { SkillResolution } from "./resolve.ts";
import type { Skill } from "./skill.ts";

/** What `/skill <name> [request]` does: inject an enabled skill into this turn, or answer why not. */
export type SkillInvocationPlan =
  | {
      readonly kind: "invoke";
      readonly skill: Skill;
      readonly request: string;
      /** The turn's message: the skill's instructions, then the request. */
      readonly text: string;
    }
  | { readonly kind: "refused"; readonly reply: string };

/**
 * Plans `/skill <name> [request]` (or a channel's `/<name> [request]`,
 * parsed by the channel). Anyone may use an enabled skill; a disabled one
 * answers "<name> is disabled by <scope> — enable with /skills on <name>".
 *
 * @example
 * const plan = planSkillInvocation("/skill meeting-notes", resolution);
 * if (plan.kind === "invoke") runTurn({ ...message, text: plan.text });
 */
export function planSkillInvocation(
  text: string,
  resolution: SkillResolution,
): SkillInvocationPlan {
  let name: string;
  let request: string;
  try {
    ({ name, request } = parseSkillInvocation(text));
  } catch (error) {
    if (!(error instanceof SkillsCommandError)) throw error;
    const names = resolution.enabled.map((s) => s.name);
    const known =
      names.length === 0 ? " No skills are enabled here." : ` Skills: ${names.join(", ")}.`;
    return { kind: "refused", reply: `${error.message}${known}` };
  }
  const found = lookupSkill(resolution, name);
  switch (found.kind) {
    case "enabled": {
      const { skill } = found.resolved;
      return { kind: "invoke", skill, request, text: skillInvocationText(skill, request) };
    }
    case "disabled":
    case "unknown":
      return { kind: "refused", reply: found.message };
  }
}
