import type { Skill, SkillSource, SkillSourceKind } from "../../src/core/skills/index.ts";

/** A skill as the loader would produce it, with sensible defaults. */
export function skill(
  name: string,
  source: SkillSourceKind = "builtin",
  overrides: Partial<Skill> = {},
): Skill {
  return {
    name,
    key: name.toLowerCase(),
    description: `Does ${name} things.`,
    body: `# ${name}\nStep one.`,
    source,
    origin: source === "builtin" ? "built-in" : `/srv/${source}/${name}`,
    files: [],
    ...overrides,
  };
}

export function source(
  kind: SkillSourceKind,
  skills: readonly Skill[],
  origin?: string,
): SkillSource {
  return { kind, origin: origin ?? (kind === "builtin" ? "built-in" : `/srv/${kind}`), skills };
}
