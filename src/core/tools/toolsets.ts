import type { AnyTool } from "./tool.ts";

/**
 * A toolset is a named preset: tool ids, families (`mcp:github`), the wildcard
 * family `mcp:*`, `*` for every tool, and other toolsets it includes. It is
 * expanded against the live registry each time a turn resolves, so a tool
 * added later reaches every conversation that selected the toolset.
 */
export interface ToolsetDef {
  readonly tools: readonly string[];
  readonly includes: readonly string[];
}

export type Toolsets = Readonly<Record<string, ToolsetDef>>;

/** `full` is every tool and cannot be redefined; `default` is every tool unless config says otherwise. */
export const BUILTIN_TOOLSETS: Toolsets = Object.freeze({
  full: { tools: ["*"], includes: [] },
  default: { tools: ["*"], includes: [] },
});

export class ToolsetError extends Error {
  override readonly name = "ToolsetError";
}

/** Merges configured toolsets over the built-ins and checks names, includes and cycles. */
export function defineToolsets(configured: Readonly<Record<string, ToolsetDef>> = {}): Toolsets {
  if (Object.hasOwn(configured, "full")) {
    throw new ToolsetError(
      'The toolset "full" is built in (every tool) and cannot be redefined. Give your toolset another name.',
    );
  }
  const all: Record<string, ToolsetDef> = { ...BUILTIN_TOOLSETS, ...configured };
  for (const [name, def] of Object.entries(all)) {
    for (const included of def.includes) {
      if (!Object.hasOwn(all, included)) {
        throw new ToolsetError(
          `Toolset "${name}" includes "${included}", which is not defined. Define toolsets.${included}, or remove it from ${name}.includes. Known toolsets: ${Object.keys(all).sort().join(", ")}.`,
        );
      }
    }
  }
  const cycle = findCycle(all);
  if (cycle) {
    throw new ToolsetError(
      `Toolsets include each other in a cycle: ${cycle.join(" -> ")}. Remove one of these includes.`,
    );
  }
  return Object.freeze(all);
}

function findCycle(all: Record<string, ToolsetDef>): string[] | undefined {
  const done = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    if (done.has(name)) return undefined;
    for (const included of all[name]?.includes ?? []) {
      const cycle = visit(included, [...path, name]);
      if (cycle) return cycle;
    }
    done.add(name);
    return undefined;
  };
  for (const name of Object.keys(all).sort()) {
    const cycle = visit(name, []);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * The ids a toolset selects from `tools` (already in registry order), and the
 * entries that matched nothing, so the caller can warn about them once.
 */
export function expandToolset(
  toolsets: Toolsets,
  name: string,
  tools: readonly AnyTool[],
): { ids: Set<string>; unmatched: string[] } {
  const patterns = new Set<string>();
  const seen = new Set<string>();
  const collect = (setName: string) => {
    if (seen.has(setName)) return;
    seen.add(setName);
    const def = toolsets[setName];
    if (!def) return;
    for (const entry of def.tools) patterns.add(entry);
    for (const included of def.includes) collect(included);
  };
  collect(name);

  const ids = new Set<string>();
  const matched = new Set<string>();
  for (const tool of tools) {
    for (const pattern of patterns) {
      if (matches(pattern, tool)) {
        ids.add(tool.id);
        matched.add(pattern);
      }
    }
  }
  const unmatched = [...patterns].filter((p) => !matched.has(p) && p !== "*" && p !== "mcp:*");
  return { ids, unmatched: unmatched.sort() };
}

function matches(pattern: string, tool: AnyTool): boolean {
  if (pattern === "*") return true;
  if (pattern === tool.id) return true;
  if (!tool.family) return false;
  if (pattern === "mcp:*" || pattern === "mcp") return tool.family.startsWith("mcp:");
  return pattern === tool.family;
}
