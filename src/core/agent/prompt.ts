import { UNTRUSTED_TEXT_RULE } from "./untrusted-text.ts";

/**
 * The system prompt: the persona, the rule about untrusted text, then the
 * skills and the catalog of deferred tools. No timestamps, ids or names of
 * people: anything that changes between turns rides in the user message, so
 * the prompt's bytes stay in the provider's cache until people change the
 * tools (rule 2).
 */
export interface SystemPromptParts {
  readonly persona: string;
  /** The contract's catalog: deferred names, one per line (an MCP server's on one braced line); empty when nothing can be loaded. */
  readonly catalog: string;
  /** Further blocks (skills), each already deterministic. */
  readonly blocks?: readonly string[];
}

export const DEFAULT_PERSONA =
  "You are a helpful assistant in a team chat. Answer concisely. Use the tools you have when they help; " +
  "when a tool result says a tool is off or unavailable, tell the person what it said instead of retrying.";

export function buildSystemPrompt(parts: SystemPromptParts): string {
  const sections = [parts.persona.trim(), UNTRUSTED_TEXT_RULE];
  for (const block of parts.blocks ?? []) if (block.trim() !== "") sections.push(block.trim());
  if (parts.catalog !== "") {
    sections.push(
      `## Deferred tools\nThese tools are available but not loaded. Load one with tool_search before you call it. A line such as mcp__fs__{read,write} names mcp__fs__read and mcp__fs__write.\n${parts.catalog.trimEnd()}`,
    );
  }
  return sections.join("\n\n");
}
