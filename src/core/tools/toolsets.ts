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

/** Where in the toolsets the problem is: a toolset's name, then the index of one of its includes. */
export type ToolsetCulprit =
  | readonly []
  | readonly [name: string]
  | readonly [name: string, include: number];

export class ToolsetError extends Error {
  override readonly name = "ToolsetError";
  constructor(
    message: string,
    /** The toolset (and include) to change, so a config error can point at its line. */
    readonly culprit: ToolsetCulprit = [],
  ) {
    super(message);
  }
}

/**
 * Merges configured toolsets over the built-ins (`default`, `full`) and
 * checks names, includes and cycles. A toolset names tool ids, families
 * (`mcp:*`, `mcp:github`) and other toolsets; it is expanded against the live
 * registry each turn, never stored expanded.
 *
 * @example
 * const toolsets = defineToolsets({
 *   research: { tools: ["web_search", "fetch_url"], includes: ["default"] },
 * });
 */
export function defineToolsets(configured: Readonly<Record<string, ToolsetDef>> = {}): Toolsets {
  if (Object.hasOwn(configured, "full")) {
    throw new ToolsetError(
      'The toolset "full" is built in (every tool) and cannot be redefined. Give your toolset another name.',
      ["full"],
    );
  }
  const all: Record<string, ToolsetDef> = { ...BUILTIN_TOOLSETS, ...configured };
  for (const [name, def] of Object.entries(all)) {
    def.includes.forEach((included, index) => {
      if (Object.hasOwn(all, included)) return;
      throw new ToolsetError(
        `Toolset "${name}" includes "${included}", which is not defined. Define toolsets.${included}, or remove it from ${name}.includes. Known toolsets: ${listed(Object.keys(all).sort())}.`,
        [name, index],
      );
    });
  }
  const cycle = findCycle(all);
  if (cycle) {
    throw new ToolsetError(
      `Toolsets include each other in a cycle: ${pathText(cycle.names)}. Remove one of these includes.`,
      cycle.closing,
    );
  }
  return Object.freeze(all);
}

/**
 * The first include cycle, depth first from each name in sorted order, and
 * the include that closes it. Iterative, with one visit per toolset: a config
 * may chain tens of thousands of toolsets, which would overflow a recursive
 * walk's stack.
 */
function findCycle(
  all: Record<string, ToolsetDef>,
): { names: string[]; closing: readonly [string, number] } | undefined {
  const done = new Set<string>();
  const onPath = new Map<string, number>();
  for (const root of Object.keys(all).sort()) {
    if (done.has(root)) continue;
    const path: string[] = [root];
    const next: number[] = [0];
    onPath.set(root, 0);
    while (path.length > 0) {
      const depth = path.length - 1;
      const name = path[depth] as string;
      const includes = all[name]?.includes ?? [];
      const index = next[depth] as number;
      if (index >= includes.length) {
        path.pop();
        next.pop();
        onPath.delete(name);
        done.add(name);
        continue;
      }
      next[depth] = index + 1;
      const included = includes[index] as string;
      const at = onPath.get(included);
      if (at !== undefined) return { names: [...path.slice(at), included], closing: [name, index] };
      if (done.has(included)) continue;
      onPath.set(included, path.length);
      path.push(included);
      next.push(0);
    }
  }
  return undefined;
}

/** At most a dozen names, so a message about a huge config stays readable. */
function listed(names: readonly string[]): string {
  if (names.length <= 12) return names.join(", ");
  return `${names.slice(0, 12).join(", ")} and ${names.length - 12} more`;
}

function pathText(names: readonly string[]): string {
  if (names.length <= 12) return names.join(" -> ");
  const hidden = names.length - 9;
  return `${names.slice(0, 6).join(" -> ")} -> … ${hidden} more … -> ${names.slice(-3).join(" -> ")}`;
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
  const seen = new Set<string>([name]);
  // A work list rather than recursion: includes may chain deeper than the stack.
  const pending = [name];
  for (let setName = pending.pop(); setName !== undefined; setName = pending.pop()) {
    const def = toolsets[setName];
    if (!def) continue;
    for (const entry of def.tools) patterns.add(entry);
    for (const included of def.includes) {
      if (seen.has(included)) continue;
      seen.add(included);
      pending.push(included);
    }
  }

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
