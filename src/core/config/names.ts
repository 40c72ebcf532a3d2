import { isWellFormedKey, TOOL_ID_PATTERN } from "../availability/keys.ts";

/** Toolset and skill names: what people type after `/tools use` or `/skills`. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isName(value: string): boolean {
  return NAME_PATTERN.test(value);
}

export function isToolId(value: string): boolean {
  return TOOL_ID_PATTERN.test(value);
}

/** A toolset entry: a tool id, a family (`mcp:github`), `mcp:*` for every MCP family, or `*`. */
export function isToolsetEntry(value: string): boolean {
  return value === "*" || value === "mcp:*" || isWellFormedKey(value);
}

export const NAME_RULE = 'letters, digits, "_", "." and "-", starting with a letter or digit';
