import { deciderPhrase } from "../skills/answers.ts";
import { skillSummary } from "../skills/block.ts";
import {
  describeShadowing,
  type ResolvedSkill,
  type SkillLayer,
  type SkillResolution,
} from "../skills/resolve.ts";
import { describeSkillSource, type SkillSourceKind, sourceLabel } from "../skills/skill.ts";
import {
  INVOKE_SUMMARY,
  INVOKE_USAGE,
  SKILL_SCOPE_HELP,
  SKILLS_SUMMARY,
  SKILLS_USAGE,
  SKILLS_VERBS,
  type SkillsVerb,
} from "./skills-usage.ts";
import { helpText, whyText } from "./view.ts";

/**
 * What `/skills` shows, as data. Every channel renders the same view: the
 * console as text ({@link renderSkillsText}), the others as they see fit.
 */
export type SkillsView = SkillListView | SkillWhyView | SkillHelpView;

export interface SkillItem {
  readonly name: string;
  readonly key: string;
  readonly state: "on" | "off";
  /** For `off`, what decided ("the channel scope"); "" for `on`. */
  readonly detail: string;
  readonly source: SkillSourceKind;
  /** The description, one line, capped as in the skills block. */
  readonly summary: string;
  /** The sources of the skills of this name it hides, the next in line first. */
  readonly shadows: readonly SkillSourceKind[];
}

export interface SkillListView {
  readonly kind: "list";
  /** "N of M skills available": on, of every discovered name. */
  readonly title: string;
  /** On first, then off; by name within each. */
  readonly items: readonly SkillItem[];
  readonly footer: string;
}

export interface SkillWhyLine {
  /** A layer ("channel", "global (config file)"), "used" or "shadowed". */
  readonly label: string;
  readonly text: string;
  readonly decides: boolean;
}

export interface SkillWhyView {
  readonly kind: "why";
  readonly name: string;
  readonly summary: string;
  /** The toggle layers deepest first, then the skill used, then those it shadows. */
  readonly lines: readonly SkillWhyLine[];
}

export interface SkillHelpView {
  readonly kind: "help";
  readonly title: string;
  readonly entries: readonly { readonly usage: string; readonly summary: string }[];
  readonly footer: string;
}

/** Every discovered skill with its state and source. */
export function skillListView(resolution: SkillResolution): SkillListView {
  const items = resolution.skills.map(itemOf);
  items.sort((a, b) => (a.state === b.state ? 0 : a.state === "on" ? -1 : 1));
  const on = items.filter((i) => i.state === "on").length;
  const footer =
    items.length === 0
      ? "No skills found. A skill is a folder with a SKILL.md; list skill folders under skill_folders: in the config."
      : `${INVOKE_USAGE} uses a skill; /skills why <skill> explains one; /skills help lists the commands.`;
  return {
    kind: "list",
    title: `${on} of ${items.length} skills available`,
    items,
    footer,
  };
}

function itemOf(resolved: ResolvedSkill): SkillItem {
  const { skill, state } = resolved;
  return {
    name: skill.name,
    key: resolved.key,
    state: state.enabled ? "on" : "off",
    detail: state.enabled ? "" : deciderPhrase(state.by),
    source: skill.source,
    summary: skillSummary(skill.description),
    shadows: resolved.shadowed.map((s) => s.source),
  };
}

const LAYER_LABEL: Readonly<Record<SkillLayer, string>> = {
  channel: "channel",
  workspace: "workspace",
  global: "global",
  config: "global (config file)",
};

/** Which layer decides a skill's state, and which folder the skill comes from. */
export function skillWhyView(resolution: SkillResolution, resolved: ResolvedSkill): SkillWhyView {
  const { skill, state } = resolved;
  const by = state.by;
  const summary =
    by.kind === "default"
      ? `${skill.name}: on, because no scope switches it (skills are on unless switched off).`
      : `${skill.name}: ${state.enabled ? "on" : "off"}, decided by ${deciderPhrase(by)}.`;
  const lines: SkillWhyLine[] = [];
  for (const layer of ["channel", "workspace", "global", "config"] as const) {
    const toggle = resolution.layers.find((l) => l.layer === layer)?.toggles.get(resolved.key);
    lines.push({
      label: LAYER_LABEL[layer],
      text: toggle === undefined ? "—" : toggle.value ? "on" : "off",
      decides: by.kind === "scope" && by.layer === layer,
    });
  }
  lines.push({ label: "used", text: describeSkillSource(skill), decides: false });
  for (const text of describeShadowing(resolved)) {
    lines.push({ label: "shadowed", text, decides: false });
  }
  return { kind: "why", name: skill.name, summary, lines };
}

/** Every command with its usage line, or one command's. */
export function skillHelpView(topic: SkillsVerb | null = null): SkillHelpView {
  const verbs = topic === null ? SKILLS_VERBS : [topic];
  const entries = verbs.map((verb) => ({
    usage: SKILLS_USAGE[verb],
    summary: SKILLS_SUMMARY[verb],
  }));
  if (topic === null) entries.push({ usage: INVOKE_USAGE, summary: INVOKE_SUMMARY });
  return {
    kind: "help",
    title:
      topic === null ? "/skills: see and switch the skills the bot can use" : `/skills ${topic}`,
    entries,
    footer: `${SKILL_SCOPE_HELP} Changes apply from the next message.`,
  };
}

/** Plain text for channels without rich formatting (the console); no trailing newline. */
export function renderSkillsText(view: SkillsView): string {
  switch (view.kind) {
    case "list": {
      const width = Math.max(0, ...view.items.map((i) => i.name.length)) + 2;
      const rows = view.items.flatMap((i) => [
        `  ${i.name.padEnd(width)}${itemText(i)}`,
        `  ${"".padEnd(width)}${i.summary}`,
      ]);
      return [view.title, ...rows, "", view.footer].join("\n");
    }
    case "why":
      return whyText(view);
    case "help":
      return helpText(view);
  }
}

function itemText(item: SkillItem): string {
  const shadows = item.shadows.length === 0 ? "" : `, shadows ${skillShadowsText(item)}`;
  return `${skillStateText(item)} · ${skillSourceText(item)}${shadows}`;
}

/** "on", or "off (disabled by the channel scope)". */
export function skillStateText(item: SkillItem): string {
  return item.state === "on" ? "on" : `off (disabled by ${item.detail})`;
}

/** "bundled skill": where the skill that is used comes from. */
export function skillSourceText(item: SkillItem): string {
  return `${sourceLabel(item.source)} skill`;
}

/** "the user skill and the bundled skill": the skills of that name it hides; "" for none. */
export function skillShadowsText(item: SkillItem): string {
  return item.shadows.map((s) => `the ${sourceLabel(s)} skill`).join(" and ");
}
