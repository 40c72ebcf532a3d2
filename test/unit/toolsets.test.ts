import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BUILTIN_TOOLSETS,
  defineToolsets,
  expandToolset,
  ToolsetError,
} from "../../src/core/tools/toolsets.ts";
import { mcpTool, registryOf, tool } from "../support/tools.ts";

function toolsetError(configured: Parameters<typeof defineToolsets>[0]): ToolsetError {
  try {
    defineToolsets(configured);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolsetError);
    return error as ToolsetError;
  }
  throw new Error("defineToolsets accepted the toolsets");
}

const registry = registryOf(
  tool("web_search"),
  tool("fetch_url"),
  tool("current_time"),
  tool("notes_add", { family: "plugin:notes" }),
  mcpTool("github", "create_issue"),
  mcpTool("github", "list_issues"),
  mcpTool("filesystem", "read_file"),
);

describe("defineToolsets", () => {
  it("always has full and default, both every tool", () => {
    expect(BUILTIN_TOOLSETS).toEqual({
      full: { tools: ["*"], includes: [] },
      default: { tools: ["*"], includes: [] },
    });
    const toolsets = defineToolsets();
    expect(toolsets.full).toEqual({ tools: ["*"], includes: [] });
    expect(toolsets.default).toEqual({ tools: ["*"], includes: [] });
    expect(
      Object.keys(defineToolsets({ research: { tools: ["web_search"], includes: [] } })).sort(),
    ).toEqual(["default", "full", "research"]);
  });

  it("lets config narrow default", () => {
    const toolsets = defineToolsets({ default: { tools: ["web_search"], includes: [] } });
    expect(toolsets.default).toEqual({ tools: ["web_search"], includes: [] });
    expect(toolsets.full).toEqual({ tools: ["*"], includes: [] });
  });

  it("refuses to redefine full", () => {
    expect(toolsetError({ full: { tools: ["web_search"], includes: [] } }).message).toBe(
      'The toolset "full" is built in (every tool) and cannot be redefined. Give your toolset another name.',
    );
  });

  it("refuses an include of an undefined toolset, listing the known ones", () => {
    expect(toolsetError({ research: { tools: [], includes: ["basics"] } }).message).toBe(
      'Toolset "research" includes "basics", which is not defined. Define toolsets.basics, or remove it from research.includes. Known toolsets: default, full, research.',
    );
  });

  it("refuses toolsets that include each other, naming the cycle", () => {
    expect(
      toolsetError({
        a: { tools: [], includes: ["b"] },
        b: { tools: [], includes: ["a"] },
      }).message,
    ).toBe("Toolsets include each other in a cycle: a -> b -> a. Remove one of these includes.");
    expect(toolsetError({ loop: { tools: [], includes: ["loop"] } }).message).toContain(
      "loop -> loop",
    );
    expect(
      toolsetError({
        x: { tools: [], includes: ["y"] },
        y: { tools: [], includes: ["z"] },
        z: { tools: [], includes: ["x"] },
      }).message,
    ).toContain("x -> y -> z -> x");
  });

  it("accepts a diamond of includes, which is not a cycle", () => {
    expect(() =>
      defineToolsets({
        top: { tools: [], includes: ["left", "right"] },
        left: { tools: ["a"], includes: ["base"] },
        right: { tools: ["b"], includes: ["base"] },
        base: { tools: ["c"], includes: [] },
      }),
    ).not.toThrow();
  });
});

describe("expandToolset", () => {
  const toolsets = defineToolsets({
    research: { tools: ["web_search", "mcp:github"], includes: ["basics"] },
    basics: { tools: ["current_time"], includes: [] },
    everything_mcp: { tools: ["mcp:*"], includes: [] },
    plugins: { tools: ["plugin:notes", "mcp:ghost", "retired_tool"], includes: [] },
  });
  const expand = (name: string) => expandToolset(toolsets, name, registry.list());

  it("expands * to every registered tool", () => {
    expect([...expand("full").ids]).toEqual(registry.list().map((t) => t.id));
    expect([...expand("default").ids]).toEqual(registry.list().map((t) => t.id));
  });

  it("expands ids, families and included toolsets, in registry order", () => {
    expect([...expand("research").ids]).toEqual([
      "current_time",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
      "web_search",
    ]);
  });

  it("expands mcp:* to every MCP family and nothing else", () => {
    expect([...expand("everything_mcp").ids]).toEqual([
      "mcp__filesystem__read_file",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
    ]);
  });

  it("reports entries that match nothing, sorted", () => {
    const { ids, unmatched } = expand("plugins");
    expect([...ids]).toEqual(["notes_add"]);
    expect(unmatched).toEqual(["mcp:ghost", "retired_tool"]);
    expect(expand("everything_mcp").unmatched).toEqual([]);
    expect(expandToolset(toolsets, "full", []).unmatched).toEqual([]);
  });

  it("expands against the live registry, so a tool added later is selected", () => {
    const live = registryOf(mcpTool("github", "create_issue"));
    expect([...expandToolset(toolsets, "research", live.list()).ids]).toEqual([
      "mcp__github__create_issue",
    ]);
    live.register(mcpTool("github", "merge_pr"));
    live.register(tool("web_search"));
    expect([...expandToolset(toolsets, "research", live.list()).ids]).toEqual([
      "mcp__github__create_issue",
      "mcp__github__merge_pr",
      "web_search",
    ]);
  });
});

describe("include graphs", () => {
  const names = ["a", "b", "c", "d", "e"] as const;
  /** Random includes between a few toolsets, each naming a tool of its own. */
  const graphs = fc.dictionary(
    fc.constantFrom(...names),
    fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }),
  );
  const defsOf = (graph: Record<string, string[]>) =>
    Object.fromEntries(
      Object.entries(graph).map(([name, includes]) => [
        name,
        { tools: [`t_${name}`], includes: includes.filter((i) => Object.hasOwn(graph, i)) },
      ]),
    );
  /** Whether `from` reaches `to` by one or more includes: the plain, slow definition. */
  const reaches = (defs: Record<string, { includes: string[] }>, from: string, to: string) => {
    const seen = new Set<string>();
    const pending = [...(defs[from]?.includes ?? [])];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (name === to) return true;
      if (seen.has(name)) continue;
      seen.add(name);
      pending.push(...(defs[name]?.includes ?? []));
    }
    return false;
  };

  it("refuses exactly the graphs with a cycle, naming an include that closes one", () => {
    fc.assert(
      fc.property(graphs, (graph) => {
        const defs = defsOf(graph);
        const cyclic = Object.keys(defs).some((name) => reaches(defs, name, name));
        let error: ToolsetError | undefined;
        try {
          defineToolsets(defs);
        } catch (thrown) {
          error = thrown as ToolsetError;
        }
        expect(error !== undefined).toBe(cyclic);
        if (error === undefined) return;
        const [name, include] = error.culprit;
        const included = defs[name ?? ""]?.includes[include ?? -1];
        expect(included).toBeDefined();
        expect(included === name || reaches(defs, included ?? "", name ?? "")).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("expands a toolset to the tools of everything it reaches", () => {
    fc.assert(
      fc.property(
        graphs.filter((graph) => {
          const defs = defsOf(graph);
          return !Object.keys(defs).some((name) => reaches(defs, name, name));
        }),
        fc.constantFrom(...names),
        (graph, start) => {
          const defs = defsOf(graph);
          fc.pre(Object.hasOwn(defs, start));
          const tools = names.map((name) => tool(`t_${name}`));
          const { ids } = expandToolset(defineToolsets(defs), start, tools);
          const expected = names.filter((name) => name === start || reaches(defs, start, name));
          expect([...ids]).toEqual(expected.map((name) => `t_${name}`));
        },
      ),
      { numRuns: 500 },
    );
  });
});
