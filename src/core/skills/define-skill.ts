import { isSkillName, SKILL_NAME_RULE, type Skill, skillKey } from "./skill.ts";
import { MAX_DESCRIPTION } from "./skill-file.ts";

/** Where inline skills say they come from in `/skills` and `switchyard skills`. */
export const INLINE_ORIGIN = "inline";

/** A skill written in code rather than a SKILL.md: what `defineSkill` takes. */
export interface SkillDefinition {
  readonly name: string;
  /** When to use it: the model picks skills by this line. */
  readonly description: string;
  /** The instructions the model loads with the `skill` tool (markdown). */
  readonly body: string;
}

/** A skill definition that breaks the SKILL.md rules: the message names the field and the fix. */
export class SkillDefinitionError extends Error {
  override readonly name = "SkillDefinitionError";
}

/**
 * A skill from code, held to the rules a SKILL.md is: a name of
 * {@link SKILL_NAME_RULE}, a description of at most {@link MAX_DESCRIPTION}
 * characters, a body. It sits with the global skills (a workspace's folder
 * shadows it) and people switch it on and off with `/skills` like any other.
 *
 * @example
 * import { defineSkill } from "switchyard";
 *
 * const triage = defineSkill({
 *   name: "triage",
 *   description: "Sort a bug report into severity and owner.",
 *   body: "# Triage\n1. Ask for the version.\n2. Pick a severity from S1 to S4.",
 * });
 */
export function defineSkill(definition: SkillDefinition): Skill {
  const { name, description, body } = definition;
  if (typeof name !== "string" || !isSkillName(name)) {
    throw new SkillDefinitionError(
      `defineSkill: ${JSON.stringify(name)} is not a skill name. Use ${SKILL_NAME_RULE}, e.g. "meeting-notes".`,
    );
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new SkillDefinitionError(
      `defineSkill: skill ${name} needs a description: one line saying when to use it.`,
    );
  }
  if (description.length > MAX_DESCRIPTION) {
    throw new SkillDefinitionError(
      `defineSkill: skill ${name}'s description is ${description.length} characters; keep it to ${MAX_DESCRIPTION}.`,
    );
  }
  if (typeof body !== "string" || body.trim() === "") {
    throw new SkillDefinitionError(
      `defineSkill: skill ${name} has no body. Write the instructions the model should follow.`,
    );
  }
  return Object.freeze({
    name,
    key: skillKey(name),
    description: description.trim(),
    body: body.trim(),
    source: "global",
    origin: INLINE_ORIGIN,
    files: Object.freeze([]) as readonly string[],
  });
}

/** Whether a value is a skill `defineSkill` made (a plugin's export is checked with it). */
export function isInlineSkill(value: unknown): value is Skill {
  if (typeof value !== "object" || value === null) return false;
  const skill = value as Partial<Skill>;
  return (
    skill.origin === INLINE_ORIGIN &&
    typeof skill.name === "string" &&
    typeof skill.body === "string" &&
    typeof skill.description === "string"
  );
}
