import type { LoadMode } from "../loading/modes.ts";
import type { KeyValue } from "./keys.ts";

/**
 * Every scope, shallow to deep: the one place the scope order is written.
 * Per key, the deepest scope that mentions it wins. The resolver's layers,
 * the chat grammar, skills' scopes, the permission rules and every
 * platform's scope picker derive from this table; adding a scope is one
 * entry here, the address field that names it, and its store key.
 */
export const SCOPE_TABLE = [
  /** The config file, and what owners change from chat over it. */
  {
    name: "global",
    fromChat: true,
    skills: true,
    buttons: false,
    binds: false,
    letter: "g",
  },
  /**
   * The base intent of the agent that answers (see src/core/agents): set in
   * the config's `agents:`, never from chat. The default agent has none.
   */
  { name: "agent", fromChat: false, skills: false, buttons: false, binds: false, letter: "a" },
  /** A Slack team, a Discord guild, a Telegram chat. */
  { name: "workspace", fromChat: true, skills: true, buttons: true, binds: true, letter: "w" },
  { name: "channel", fromChat: true, skills: true, buttons: true, binds: true, letter: "h" },
  /** A thread or a DM; skills have none: they are part of what a channel's bot knows. */
  {
    name: "conversation",
    fromChat: true,
    skills: false,
    buttons: true,
    binds: true,
    letter: "c",
  },
  /** The process's `--tools` flag (else SWITCHYARD_TOOLS): never changed from chat. */
  { name: "runtime", fromChat: false, skills: false, buttons: false, binds: false, letter: "r" },
] as const;

type ScopeRow = (typeof SCOPE_TABLE)[number];
export type ScopeName = ScopeRow["name"];

/** Shallow to deep. */
export const SCOPES: readonly ScopeName[] = SCOPE_TABLE.map((row) => row.name);

/** The scopes a person can change from chat, deepest first (runtime is a process flag). */
export type ChatScope = Extract<ScopeRow, { fromChat: true }>["name"];
export const CHAT_SCOPES: readonly ChatScope[] = deepestFirst(
  SCOPE_TABLE.filter((row): row is Extract<ScopeRow, { fromChat: true }> => row.fromChat),
);

/** The scopes that switch skills, shallow to deep. */
export type SkillScope = Extract<ScopeRow, { skills: true }>["name"];
export const SKILL_SCOPES: readonly SkillScope[] = SCOPE_TABLE.filter(
  (row): row is Extract<ScopeRow, { skills: true }> => row.skills,
).map((row) => row.name);

/**
 * The scopes an agent binding names from chat (`/agent <id> [scope]`), shallow
 * to deep; the config's `bindings:` may also name a bot account, shallower
 * than all of them (see src/core/agents/bindings.ts).
 */
export type BindingScope = Extract<ScopeRow, { binds: true }>["name"];
export const BINDING_SCOPES: readonly BindingScope[] = SCOPE_TABLE.filter(
  (row): row is Extract<ScopeRow, { binds: true }> => row.binds,
).map((row) => row.name);

/** The scopes a list message's buttons act on, deepest first; global is changed by typing the command (owners only). */
export type ButtonScope = Extract<ScopeRow, { buttons: true }>["name"];
export const TOOL_BUTTON_SCOPES: readonly ButtonScope[] = deepestFirst(
  SCOPE_TABLE.filter((row): row is Extract<ScopeRow, { buttons: true }> => row.buttons),
);
/** The button scopes of `/skills`: those that also switch skills. */
export type SkillButtonScope = ButtonScope & SkillScope;
export const SKILL_BUTTON_SCOPES: readonly SkillButtonScope[] = TOOL_BUTTON_SCOPES.filter(
  (scope): scope is SkillButtonScope => (SKILL_SCOPES as readonly string[]).includes(scope),
);

/** One letter a scope, for platforms whose button data is tight (Telegram's 64 bytes). */
export function scopeLetter(scope: ScopeName): string {
  return SCOPE_TABLE.find((row) => row.name === scope)?.letter ?? "";
}

/** The scope a letter of {@link scopeLetter} names, if any. */
export function scopeOfLetter(letter: string | undefined): ScopeName | undefined {
  return SCOPE_TABLE.find((row) => row.letter === letter)?.name;
}

/** How deep a scope is: 0 for global; a deeper scope has a larger depth. */
export function scopeDepth(scope: ScopeName): number {
  return SCOPES.indexOf(scope);
}

function deepestFirst<Name extends ScopeName>(rows: readonly { readonly name: Name }[]): Name[] {
  return rows.map((row) => row.name).reverse();
}

/**
 * One layer of decisions. `keys` maps availability keys to on (`true`), off
 * (`false`) or `"ask"` (on, each call approved first): a tool id, a family
 * (`mcp:github`), the aggregate `mcp`, or `all`.
 */
export interface ScopeLayer {
  readonly keys?: Readonly<Record<string, KeyValue>>;
  readonly toolset?: string;
  readonly mode?: LoadMode;
}

/** Every scope but the conversation's, whose layer comes from its stored intent. */
export type ScopeStack = {
  readonly [S in Exclude<ScopeName, "conversation">]?: ScopeLayer;
};

/** The scopes stored as shared layers (the conversation's is its intent; runtime is a flag). */
export type SharedScope = Exclude<ChatScope, "conversation">;

export function isScopeName(value: string): value is ScopeName {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * One layer over another of the same scope, the upper winning per key: the
 * global changes owners made from chat over the config file's global layer.
 */
export function overlayLayer(base: ScopeLayer, over: ScopeLayer): ScopeLayer {
  const toolset = over.toolset ?? base.toolset;
  const mode = over.mode ?? base.mode;
  return {
    keys: { ...base.keys, ...over.keys },
    ...(toolset !== undefined ? { toolset } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}
