import { isName, NAME_RULE } from "../config/names.ts";

/** Where a skill came from, shallow to deep: a deeper skill shadows a shallower one of the same name. */
export const SKILL_SOURCES = ["builtin", "global", "workspace"] as const;
export type SkillSourceKind = (typeof SKILL_SOURCES)[number];

/** The origin of every built-in skill: it ships inside the package. */
export const BUILTIN_ORIGIN = "built-in";

/**
 * A skill: a folder with a SKILL.md, the format of the Agent Skills
 * ecosystem. The frontmatter gives `name` and `description`; the markdown
 * after it is the body, which the model loads on demand with the `skill`
 * tool, or a person injects with `/skill <name>`.
 */
export interface Skill {
  /** As written in the frontmatter: what people and the model see. */
  readonly name: string;
  /** The name in lowercase: names resolve case-insensitively. */
  readonly key: string;
  readonly description: string;
  /** The markdown after the frontmatter, trimmed. */
  readonly body: string;
  readonly source: SkillSourceKind;
  /** The skill's folder, or {@link BUILTIN_ORIGIN}. */
  readonly origin: string;
  /** The other files of the skill's folder, relative paths with "/", sorted. */
  readonly files: readonly string[];
}

/** What one SKILL.md says, before the loader places it in a folder. */
export type SkillDocument = Pick<Skill, "name" | "key" | "description" | "body">;

/**
 * The skills of one folder, as the loader read them. `origin` is the folder
 * named in the config (or {@link BUILTIN_ORIGIN}); each skill has its own.
 */
export interface SkillSource {
  readonly kind: SkillSourceKind;
  readonly origin: string;
  readonly skills: readonly Skill[];
}

/** Skill names follow the toolset names' rule: `[A-Za-z0-9][A-Za-z0-9_.-]{0,63}`. */
export function isSkillName(value: string): boolean {
  return isName(value);
}

export const SKILL_NAME_RULE = `1 to 64 ${NAME_RULE}`;

export function skillKey(name: string): string {
  return name.toLowerCase();
}

/** "built-in", "global", "workspace": how replies name a source. */
export function sourceLabel(kind: SkillSourceKind): string {
  return kind === "builtin" ? "built-in" : kind;
}

/** "built-in skill meeting-notes", "workspace skill meeting-notes (/srv/skills/meeting-notes)". */
export function describeSkillSource(skill: Pick<Skill, "name" | "source" | "origin">): string {
  const at = skill.source === "builtin" ? "" : ` (${skill.origin})`;
  return `${sourceLabel(skill.source)} skill ${skill.name}${at}`;
}
