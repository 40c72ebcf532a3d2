import type { SkillResolution } from "./resolve.ts";
import type { Skill } from "./skill.ts";

/**
 * The reply after `/skills reload`: what appeared, went and changed.
 * `skipped` are the messages of SKILL.md files that could not be read.
 */
export function reloadReply(
  before: SkillResolution,
  after: SkillResolution,
  skipped: readonly string[] = [],
): string {
  const old = new Map(before.skills.map((s) => [s.key, s.skill]));
  const now = new Map(after.skills.map((s) => [s.key, s.skill]));
  const added = [...now.values()].filter((s) => !old.has(s.key)).map((s) => s.name);
  const gone = [...old.values()].filter((s) => !now.has(s.key)).map((s) => s.name);
  const changed = [...now.values()]
    .filter((s) => {
      const was = old.get(s.key);
      return was !== undefined && !sameSkill(was, s);
    })
    .map((s) => s.name);
  const parts = [
    `Skills reloaded: ${after.enabled.length} of ${after.skills.length} available.`,
    added.length > 0 ? `New: ${added.join(", ")}.` : "",
    gone.length > 0 ? `Gone: ${gone.join(", ")}.` : "",
    changed.length > 0 ? `Changed: ${changed.join(", ")}.` : "",
    added.length + gone.length + changed.length === 0 ? "Nothing changed." : "",
    skipped.length > 0
      ? `Skipped ${skipped.length} SKILL.md ${skipped.length === 1 ? "file" : "files"}: ${skipped.join(" ")}`
      : "",
  ];
  return parts.filter((p) => p !== "").join(" ");
}

function sameSkill(a: Skill, b: Skill): boolean {
  return (
    a.name === b.name &&
    a.description === b.description &&
    a.body === b.body &&
    a.source === b.source &&
    a.origin === b.origin &&
    a.files.join("\n") === b.files.join("\n")
  );
}
