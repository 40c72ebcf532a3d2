import { ALL_KEY, MCP_KEY } from "../availability/keys.ts";
import { CHAT_SCOPES, type ChatScope } from "../availability/scopes.ts";
import type { LoadMode } from "../loading/modes.ts";

/** How the confirmations read. Kept apart from planning so the wording is in one place. */

/** Rule 5, said every time: a change never reaches the turn already running. */
export const APPLIES_NEXT = "This applies from the next message; the current answer is unaffected.";

/** "in this channel", "globally". */
export function where(scope: ChatScope): string {
  return scope === "global" ? "globally" : `in this ${scope}`;
}

/**
 * What decides once this scope lets go: the shallower chat scopes' settings
 * ("the workspace and global settings"), or below the global scope `floor`.
 */
export function shallower(scope: ChatScope, floor = "the config file and the toolset"): string {
  const below = CHAT_SCOPES.slice(CHAT_SCOPES.indexOf(scope) + 1);
  if (below.length === 0) return floor;
  const last = below[below.length - 1];
  const list = below.length === 1 ? last : `${below.slice(0, -1).join(", ")} and ${last}`;
  return `the ${list} settings`;
}

/** "web_search is", "All MCP tools are", "The tools of MCP server github are". */
export function subject(key: string): string {
  if (key === ALL_KEY) return "All tools are";
  if (key === MCP_KEY) return "All MCP tools are";
  if (key.startsWith("mcp:")) return `The tools of MCP server ${key.slice(4)} are`;
  if (key.includes(":")) return `The ${key} tools are`;
  return `${key} is`;
}

const MODE_MEANING: Readonly<Record<LoadMode, string>> = {
  full: "every enabled tool is resident",
  default: "every enabled tool but the big ones is resident; those load with tool_search",
  minimal: "only the essential tools are resident, with no tool_search",
  discover: "only the essential tools are resident; the rest load with tool_search",
};

export function modeMeaning(mode: LoadMode): string {
  return MODE_MEANING[mode];
}

/** Joins sentences, each already ending in a period, and adds the timing. */
export function confirm(...sentences: string[]): string {
  return [...sentences.filter((s) => s !== ""), APPLIES_NEXT].join(" ");
}
