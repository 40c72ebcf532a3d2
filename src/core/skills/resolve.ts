import { SKILL_SCOPES, type SkillScope } from "../availability/scopes.ts";
import { WarnOnce } from "../logger.ts";
import { describeSkillSource, SKILL_SOURCES, type Skill, type SkillSource } from "./skill.ts";

/**
 * The scopes that switch skills, shallow to deep, from the one scope table.
 * Skills have no conversation scope: they are part of what a channel's bot
 * knows how to do.
 */
export { SKILL_SCOPES, type SkillScope };

/** Skill name -> on (`true`) or off. A skill no scope mentions is on. */
export type SkillToggles = Readonly<Record<string, boolean>>;

/**
 * One layer of toggles: the config file's `skills:` section, or a scope
 * people change from chat. The global scope has both; what owners set from
 * chat overlays the file, per name.
 */
export type SkillLayer = "config" | SkillScope;

/** Every layer of toggles for one channel, as the shell read them. */
export interface SkillToggleStack {
  /** The config file's `skills:` section. */
  readonly config?: SkillToggles;
  /** The global changes owners made from chat (the store's global scope). */
  readonly global?: SkillToggles;
  readonly workspace?: SkillToggles;
  readonly channel?: SkillToggles;
}

/** Who decided a skill's state: a layer that names it, or the default (on). */
export type SkillDecider =
  | {
      readonly kind: "scope";
      readonly scope: SkillScope;
      readonly layer: SkillLayer;
      /** The name as that layer spells it. */
      readonly name: string;
    }
  | { readonly kind: "default" };

export interface SkillState {
  readonly enabled: boolean;
  readonly by: SkillDecider;
}

export interface ResolvedSkill {
  readonly key: string;
  /** The deepest skill of this name: the one that is used. */
  readonly skill: Skill;
  /** The shallower skills of the same name it hides, the next in line first. */
  readonly shadowed: readonly Skill[];
  readonly state: SkillState;
}

/** One layer's toggles keyed by skill key, with the spellings it used. */
export interface ToggleLayer {
  readonly layer: SkillLayer;
  readonly scope: SkillScope;
  readonly toggles: ReadonlyMap<
    string,
    { readonly value: boolean; readonly names: readonly string[] }
  >;
}

export interface SkillResolution {
  /** Every discovered skill name once, sorted by key. */
  readonly skills: readonly ResolvedSkill[];
  /** The skills that are on, sorted by key: what the skills block and `/skill` offer. */
  readonly enabled: readonly Skill[];
  /** The toggle layers, deepest first; kept for `/skills why` and change notes. */
  readonly layers: readonly ToggleLayer[];
}

export interface SkillPolicy {
  /** Unknown names and duplicate skills are reported here once each. Keep one per process. */
  readonly warnings?: WarnOnce;
}

/** The order layers are consulted in: the deepest first, chat over file at the global scope. */
const LAYERS: readonly SkillLayer[] = ["channel", "workspace", "global", "config"];

/**
 * Decides which skill each name means and whether it is on, for one channel.
 *
 * Sources go shallow to deep: built-ins, then global folders in config
 * order, then the workspace's folders. A deeper skill with the same name
 * (case ignored) shadows a shallower one, which stays in `shadowed` so views
 * can say so, and comes back when the deeper one is deleted. Then, per name,
 * the deepest layer of toggles that mentions it decides; a name no layer
 * mentions is on. A toggle for a name no skill has warns once and is ignored.
 *
 * @example
 * const [global, workspace, channel] = await Promise.all([
 *   scopes.readSkills("global", {}),
 *   scopes.readSkills("workspace", address),
 *   scopes.readSkills("channel", address),
 * ]);
 * const resolution = resolveSkills(
 *   library.sourcesFor(address),
 *   { config: config.skills, global, workspace, channel },
 *   { warnings },
 * );
 * const block = skillsBlock(resolution.enabled);
 */
export function resolveSkills(
  sources: readonly SkillSource[],
  toggles: SkillToggleStack = {},
  policy: SkillPolicy = {},
): SkillResolution {
  const warnings = policy.warnings ?? new WarnOnce();
  const chains = shadowChains(sources, warnings);
  const layers = toggleLayers(toggles);
  warnUnknown(layers, chains, warnings);

  const skills: ResolvedSkill[] = [];
  for (const key of [...chains.keys()].sort(compare)) {
    const [skill, ...shadowed] = chains.get(key) as Skill[];
    if (skill === undefined) continue;
    skills.push({ key, skill, shadowed, state: decide(key, layers) });
  }
  return {
    skills,
    enabled: skills.filter((s) => s.state.enabled).map((s) => s.skill),
    layers,
  };
}

/** The skill a person or the model named, case ignored. */
export function findSkill(resolution: SkillResolution, name: string): ResolvedSkill | undefined {
  const key = name.toLowerCase();
  return resolution.skills.find((s) => s.key === key);
}

/** Per key, the skills that carry it, deepest first. */
function shadowChains(sources: readonly SkillSource[], warnings: WarnOnce): Map<string, Skill[]> {
  const rank = (source: SkillSource) => SKILL_SOURCES.indexOf(source.kind);
  // A stable sort: folders of one kind keep the config's order.
  const ordered = [...sources].sort((a, b) => rank(a) - rank(b));
  const chains = new Map<string, Skill[]>();
  for (const source of ordered) {
    const inFolder = new Map<string, Skill>();
    const skills = [...source.skills].sort((a, b) => compare(a.origin, b.origin));
    for (const skill of skills) {
      const first = inFolder.get(skill.key);
      if (first !== undefined) {
        warnings.warn(
          `skill-duplicate:${skill.origin}`,
          `Two skills in ${source.origin} are named ${first.name} (names ignore case): ${first.origin} and ${skill.origin}. Using the first; rename the other.`,
        );
        continue;
      }
      inFolder.set(skill.key, skill);
      const chain = chains.get(skill.key);
      if (chain === undefined) chains.set(skill.key, [skill]);
      else chain.unshift(skill);
    }
  }
  return chains;
}

function toggleLayers(stack: SkillToggleStack): ToggleLayer[] {
  const layers: ToggleLayer[] = [];
  for (const layer of LAYERS) {
    const toggles = stack[layer];
    if (toggles === undefined) continue;
    const byKey = new Map<string, { value: boolean; names: string[] }>();
    for (const name of Object.keys(toggles).sort(compare)) {
      const value = toggles[name] as boolean;
      const key = name.toLowerCase();
      const seen = byKey.get(key);
      // Two spellings of one name that disagree: off is the safe reading.
      if (seen === undefined) byKey.set(key, { value, names: [name] });
      else byKey.set(key, { value: seen.value && value, names: [...seen.names, name] });
    }
    layers.push({ layer, scope: layer === "config" ? "global" : layer, toggles: byKey });
  }
  return layers;
}

function decide(key: string, layers: readonly ToggleLayer[]): SkillState {
  for (const { layer, scope, toggles } of layers) {
    const toggle = toggles.get(key);
    if (toggle === undefined) continue;
    const name = toggle.names[0] ?? key;
    return { enabled: toggle.value, by: { kind: "scope", scope, layer, name } };
  }
  return { enabled: true, by: { kind: "default" } };
}

function warnUnknown(
  layers: readonly ToggleLayer[],
  chains: ReadonlyMap<string, readonly Skill[]>,
  warnings: WarnOnce,
): void {
  for (const { layer, toggles } of layers) {
    for (const [key, { names }] of toggles) {
      if (chains.has(key)) continue;
      const where = layer === "config" ? "the config file's skills: section" : `the ${layer} scope`;
      warnings.warn(
        `skill-toggle:${key}`,
        `Unknown skill "${names[0]}" in ${where} is ignored: no skill folder has a skill of that name. Check the spelling against /skills or \`switchyard skills\`.`,
      );
    }
  }
}

/** "built-in skill meeting-notes shadowed by workspace skill meeting-notes (/srv/skills/meeting-notes)". */
export function describeShadowing(resolved: ResolvedSkill): readonly string[] {
  const used = describeSkillSource(resolved.skill);
  return resolved.shadowed.map((hidden) => `${describeSkillSource(hidden)} shadowed by ${used}`);
}

/** Code-unit order, the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
