/** What a tool's id may be: 1 to 64 of `A-Z a-z 0-9 _ -`, the characters every provider accepts. */
export const TOOL_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** What decides a tool's keys: its id and family (a structural type, so this file needs no tool). */
export interface Keyed {
  readonly id: string;
  readonly family?: string | undefined;
}

/**
 * What one scope says about a key: on (`true`), off (`false`) or `ask`:
 * on, but every call waits for a person's approval first. The model sees an
 * `ask` tool exactly as an `on` one (same bytes, same contract hash), so
 * switching between the two never breaks the prompt cache (rule 2).
 * Booleans stay booleans so layers stored before `ask` existed read as they were.
 */
export type KeyValue = boolean | typeof ASK;
export const ASK = "ask";

/** The word people read and write for a key value. */
export type KeyWord = "on" | "off" | typeof ASK;

export function keyWord(value: KeyValue): KeyWord {
  return value === ASK ? ASK : value ? "on" : "off";
}

export function keyValueOf(word: KeyWord): KeyValue {
  return word === ASK ? ASK : word === "on";
}

/** Whether a stored or parsed value is a key value (`true`, `false` or `"ask"`). */
export function isKeyValue(value: unknown): value is KeyValue {
  return typeof value === "boolean" || value === ASK;
}

/** The master key: every tool. */
export const ALL_KEY = "all";
/** The aggregate key: every MCP family, declared or not. */
export const MCP_KEY = "mcp";

/**
 * The keys that can decide a tool, most specific first: its id, its family,
 * `mcp` for any MCP family, then `all`. Within one scope the most specific key
 * that scope mentions decides.
 */
export function keysOf(tool: Keyed): string[] {
  const keys = [tool.id];
  if (tool.family) {
    keys.push(tool.family);
    if (tool.family.startsWith("mcp:")) keys.push(MCP_KEY);
  }
  keys.push(ALL_KEY);
  return keys;
}

/**
 * Keys that mean something even when no tool in the registry carries them:
 * an MCP server may be down or not yet connected, and `mcp:github=off` must
 * still hold when it comes back.
 */
export function isStructuralKey(key: string): boolean {
  return key === ALL_KEY || key === MCP_KEY || key.startsWith("mcp:");
}

export const KEY_PATTERN =
  /^(all|mcp|mcp:[A-Za-z0-9_.-]+|[a-z][a-z0-9_-]*:[A-Za-z0-9_.-]+|[A-Za-z0-9_-]{1,64})$/;

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}
