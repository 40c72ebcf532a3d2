import type { Switch } from "../availability/intent.ts";
import { unknownSkillMessage } from "../skills/answers.ts";
import {
  findSkill,
  SKILL_SCOPES,
  type SkillLayer,
  type SkillResolution,
  type SkillScope,
  type ToggleLayer,
} from "../skills/resolve.ts";
import { planOrRefuse } from "./errors.ts";
import { type Actor, type CommandPolicy, checkPermission, type Permission } from "./permissions.ts";
import { APPLIES_NEXT, shallower, where } from "./replies.ts";
import { formatSkillsCommand, parseSkillsCommand, type SkillsCommand } from "./skills-parse.ts";
import { type SkillsView, skillHelpView, skillListView, skillWhyView } from "./skills-view.ts";

/** Everything planning needs, handed in by the shell: the core reads no store. */
export interface SkillsPlanContext {
  readonly actor: Actor;
  readonly policy: CommandPolicy;
  /** This channel's skills as of now: what `list` and `why` show and changes are checked against. */
  readonly resolution: SkillResolution;
}

/** One stored toggle to write: `follow` deletes it. */
export interface SkillToggleChange {
  /** The name as the store keeps it (`s:<name>`). */
  readonly name: string;
  readonly value: Switch;
}

/**
 * What to do about a `/skills` command, as data. The shell writes each of a
 * `change`'s toggles to the scope (`ScopeStore.applySkill(scope, address,
 * name, value)`, the global scope being the chat overlay over the config
 * file), then sends `reply`. A `reload` plan re-reads the skill folders and
 * answers {@link reloadReply}.
 */
export type SkillsPlan =
  | {
      readonly kind: "change";
      readonly scope: SkillScope;
      readonly changes: readonly SkillToggleChange[];
      readonly reply: string;
    }
  | { readonly kind: "reload" }
  | { readonly kind: "reply"; readonly view: SkillsView }
  | { readonly kind: "refused"; readonly reply: string };

/**
 * Plans a parsed command: checks who may change the scope (the same rule as
 * `/tools`), checks the name against the discovered skills, and words the
 * reply. Reads (`list`, `why`, `help`) and `reload` need no permission.
 *
 * @example
 * const plan = planSkillsCommand(parseSkillsCommand("off meeting-notes"), ctx);
 * // { kind: "change", scope: "channel", changes: [{ name: "meeting-notes", value: "off" }],
 * //   reply: "meeting-notes is now off in this channel. This applies from the next message; ..." }
 */
export function planSkillsCommand(command: SkillsCommand, ctx: SkillsPlanContext): SkillsPlan {
  switch (command.verb) {
    case "list":
      return { kind: "reply", view: skillListView(ctx.resolution) };
    case "help":
      return { kind: "reply", view: skillHelpView(command.topic) };
    case "reload":
      return { kind: "reload" };
    case "why": {
      const resolved = findSkill(ctx.resolution, command.name);
      if (resolved === undefined) return refused(unknownSkillMessage(ctx.resolution, command.name));
      return { kind: "reply", view: skillWhyView(ctx.resolution, resolved) };
    }
  }
  const permission = skillPermission(ctx.actor, command.scope, ctx.policy, command);
  if (!permission.allowed) return refused(permission.reason);
  switch (command.verb) {
    case "on":
    case "off":
      return planSwitch(command.name, command.verb, command.scope, ctx.resolution);
    case "reset":
      return command.name === null
        ? planResetAll(command.scope, ctx.resolution)
        : planReset(command.name, command.scope, ctx.resolution);
  }
}

/** Parses and plans in one step; a command that cannot be read is refused with the parser's message. */
export function planSkillsText(text: string, ctx: SkillsPlanContext): SkillsPlan {
  return planOrRefuse(text, parseSkillsCommand, (c) => planSkillsCommand(c, ctx), refused);
}

/**
 * Who may switch skills at a scope: the `/tools` rule (rule 8). Skills have
 * no conversation scope, so a refusal never suggests one; an admin refused
 * the global scope is pointed at the workspace scope.
 */
export function skillPermission(
  actor: Actor,
  scope: SkillScope,
  policy: CommandPolicy,
  command?: SkillsCommand,
): Permission {
  // With the conversation scope closed to non-admins, the only narrower scope offered is the workspace.
  const permission = checkPermission(actor, scope, { ...policy, conversation: "admins" });
  if (permission.allowed || command === undefined || !("scope" in command)) return permission;
  const fallback = "use the workspace scope.";
  if (!permission.reason.endsWith(fallback)) return permission;
  const retry = formatSkillsCommand({ ...command, scope: "workspace" });
  return {
    allowed: false,
    reason: `${permission.reason.slice(0, -fallback.length)}use the workspace scope: ${retry}`,
  };
}

/** The layer a scope's chat changes go to: the global scope's is the overlay, not the file. */
function chatLayer(resolution: SkillResolution, scope: SkillScope): ToggleLayer | undefined {
  return resolution.layers.find((l) => l.layer === scope);
}

function planSwitch(
  name: string,
  verb: "on" | "off",
  scope: SkillScope,
  resolution: SkillResolution,
): SkillsPlan {
  const resolved = findSkill(resolution, name);
  if (resolved === undefined) return refused(unknownSkillMessage(resolution, name));
  const { key } = resolved;
  const on = verb === "on";
  // Write the key itself, and drop other spellings of it at this scope so one toggle holds.
  const others = (chatLayer(resolution, scope)?.toggles.get(key)?.names ?? []).filter(
    (n) => n !== key,
  );
  const changes: SkillToggleChange[] = [
    { name: key, value: verb },
    ...others.map((n) => ({ name: n, value: "follow" as const })),
  ];
  const deeper = deeperToggle(resolution, scope, key);
  const note =
    deeper !== undefined && deeper.value !== on
      ? ` But the ${deeper.scope} scope has it ${deeper.value ? "on" : "off"}, which wins here, so it stays ${deeper.value ? "on" : "off"} in this channel. /skills reset ${resolved.skill.name} ${deeper.scope} lets the ${scope} scope decide.`
      : "";
  return change(
    scope,
    changes,
    `${resolved.skill.name} is now ${verb} ${where(scope)}.${note} ${APPLIES_NEXT}`,
  );
}

function planReset(name: string, scope: SkillScope, resolution: SkillResolution): SkillsPlan {
  const key = name.toLowerCase();
  const stored = chatLayer(resolution, scope)?.toggles.get(key)?.names ?? [];
  const resolved = findSkill(resolution, key);
  if (resolved === undefined && stored.length === 0) {
    return refused(unknownSkillMessage(resolution, name));
  }
  const shown = resolved?.skill.name ?? name;
  if (stored.length === 0) {
    return change(scope, [], `${shown} has no setting ${where(scope)}; nothing to reset.`);
  }
  const changes = stored.map((n) => ({ name: n, value: "follow" as const }));
  const after = stateWithout(resolution, key, scope);
  const now =
    resolved === undefined
      ? "no skill has that name any more"
      : after === undefined
        ? "it is on, as skills are unless switched off"
        : `it is ${after.value ? "on" : "off"}, decided by ${layerPhrase(after.layer)}`;
  return change(scope, changes, `${shown} is reset ${where(scope)}: ${now}. ${APPLIES_NEXT}`);
}

function planResetAll(scope: SkillScope, resolution: SkillResolution): SkillsPlan {
  const layer = chatLayer(resolution, scope);
  const names = [...(layer?.toggles.values() ?? [])].flatMap((t) => t.names);
  if (names.length === 0) {
    return change(scope, [], `There are no skill settings ${where(scope)}; nothing to reset.`);
  }
  const file =
    scope === "global" &&
    (resolution.layers.find((l) => l.layer === "config")?.toggles.size ?? 0) > 0
      ? " The config file's skills: section still applies; edit the file to change it."
      : "";
  return change(
    scope,
    names.map((n) => ({ name: n, value: "follow" as const })),
    `Every skill setting ${where(scope)} is reset (${names.join(", ")}): ${shallower(scope, "the config file's settings")} decide again.${file} ${APPLIES_NEXT}`,
  );
}

/** The deepest toggle for `key` below `scope`, if any. */
function deeperToggle(
  resolution: SkillResolution,
  scope: SkillScope,
  key: string,
): { scope: SkillScope; value: boolean } | undefined {
  const depth = SKILL_SCOPES.indexOf(scope);
  for (const layer of resolution.layers) {
    if (SKILL_SCOPES.indexOf(layer.scope) <= depth) break;
    const toggle = layer.toggles.get(key);
    if (toggle !== undefined) return { scope: layer.scope, value: toggle.value };
  }
  return undefined;
}

/** What would decide `key` once the chat layer of `scope` forgets it. */
function stateWithout(
  resolution: SkillResolution,
  key: string,
  scope: SkillScope,
): { layer: SkillLayer; value: boolean } | undefined {
  for (const layer of resolution.layers) {
    if (layer.layer === scope) continue;
    const toggle = layer.toggles.get(key);
    if (toggle !== undefined) return { layer: layer.layer, value: toggle.value };
  }
  return undefined;
}

function layerPhrase(layer: SkillLayer): string {
  return layer === "config" ? "the global scope (config file)" : `the ${layer} scope`;
}

function change(scope: SkillScope, changes: SkillToggleChange[], reply: string): SkillsPlan {
  return { kind: "change", scope, changes, reply };
}

function refused(reply: string): { kind: "refused"; reply: string } {
  return { kind: "refused", reply };
}
