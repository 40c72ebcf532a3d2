import { closest, orList } from "../commands/suggest.ts";
import {
  findSkill,
  type ResolvedSkill,
  type SkillDecider,
  type SkillResolution,
} from "./resolve.ts";
import type { Skill } from "./skill.ts";

/** How many files beside a skill an answer lists before it says "and N more". */
const FILES_LISTED = 50;

/** What a skill name means in one channel now: on, off (and by whom), or nothing. */
export type SkillLookup =
  | { readonly kind: "enabled"; readonly resolved: ResolvedSkill }
  | { readonly kind: "disabled"; readonly resolved: ResolvedSkill; readonly message: string }
  | { readonly kind: "unknown"; readonly name: string; readonly message: string };

/**
 * Looks a name up, case ignored. A disabled skill answers the message that
 * names the deciding scope; an unknown one suggests enabled skills only (a
 * disabled skill is on no surface).
 */
export function lookupSkill(resolution: SkillResolution, name: string): SkillLookup {
  const resolved = findSkill(resolution, name);
  if (resolved === undefined) {
    return { kind: "unknown", name, message: unknownSkillMessage(resolution, name) };
  }
  if (resolved.state.enabled) return { kind: "enabled", resolved };
  return {
    kind: "disabled",
    resolved,
    message: disabledMessage(resolved.skill.name, resolved.state.by),
  };
}

/** "meeting-notes is disabled by the channel scope — enable with /skills on meeting-notes". */
export function disabledMessage(name: string, by: SkillDecider): string {
  return `${name} is disabled by ${deciderPhrase(by)} — enable with /skills on ${name}`;
}

/** "the channel scope", "the global scope (config file)". */
export function deciderPhrase(by: SkillDecider): string {
  if (by.kind === "default") return "default";
  return by.layer === "config" ? "the global scope (config file)" : `the ${by.scope} scope`;
}

export function unknownSkillMessage(resolution: SkillResolution, name: string): string {
  const names = resolution.enabled.map((s) => s.name);
  const near = closest(name, names);
  const hint = near.length === 0 ? "" : ` Did you mean ${orList(near)}?`;
  return `There is no skill "${name}".${hint} /skills lists the skills this bot has.`;
}

/**
 * What the `skill` tool returns for an enabled skill: the body, then the
 * files beside it, so the model knows what else the skill's folder offers.
 */
export function skillToolAnswer(skill: Skill): string {
  return `${skill.body === "" ? "(This skill has no instructions beyond its description.)" : skill.body}\n\n${filesLine(skill)}`;
}

/** "Files beside it (in /srv/skills/x): a.md, b.md", or "Files beside it: none." */
export function filesLine(skill: Skill): string {
  if (skill.files.length === 0) return "Files beside it: none.";
  const shown = skill.files.slice(0, FILES_LISTED).join(", ");
  const more =
    skill.files.length > FILES_LISTED ? `, and ${skill.files.length - FILES_LISTED} more` : "";
  const where = skill.source === "builtin" ? "" : ` (in ${skill.origin})`;
  return `Files beside it${where}: ${shown}${more}.`;
}

/**
 * The `skill` tool's result for any name: the body of an enabled skill, or a
 * text for the model to pass on. The model cannot enable a skill (rule 8):
 * the texts say what a person can do.
 */
export function skillToolResult(resolution: SkillResolution, name: string): string {
  const found = lookupSkill(resolution, name);
  switch (found.kind) {
    case "enabled":
      return skillToolAnswer(found.resolved.skill);
    case "disabled":
      return `${found.message}. Its instructions are not available here; tell the person if they asked for it, and do without it.`;
    case "unknown": {
      const names = resolution.enabled.map((s) => s.name);
      const known =
        names.length === 0
          ? "No skills are enabled here."
          : `The skills you can load: ${names.join(", ")}.`;
      return `There is no skill named "${name}". ${known}`;
    }
  }
}

/**
 * The text of a turn a person started with `/skill <name> [request]`: the
 * skill's instructions injected ahead of the request, so this turn follows
 * them without a tool call.
 */
export function skillInvocationText(skill: Skill, request: string): string {
  const asked =
    request.trim() === ""
      ? "No request was given with it: apply the skill to the conversation so far."
      : `Request: ${request.trim()}`;
  return [
    `The person invoked the skill ${skill.name}. Follow its instructions for this message.`,
    "",
    `<skill name="${skill.name}">`,
    skillToolAnswer(skill),
    "</skill>",
    "",
    asked,
  ].join("\n");
}
