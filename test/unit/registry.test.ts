import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalJson } from "../../src/core/tools/canonical-json.ts";
import { DuplicateToolError, ToolDefinitionError } from "../../src/core/tools/errors.ts";
import { compareIds, ToolRegistry } from "../../src/core/tools/registry.ts";
import {
  defineJsonSchemaTool,
  defineTool,
  RESERVED_IDS,
  type ToolSpec,
} from "../../src/core/tools/tool.ts";
import { permute } from "../support/arbitraries.ts";
import { mcpTool, tool } from "../support/tools.ts";

const spec = (overrides: Partial<ToolSpec> = {}): ToolSpec => ({
  id: "lookup",
  description: "Looks something up.",
  parameters: z.object({ q: z.string() }),
  execute: () => "",
  ...overrides,
});

function definitionError(overrides: Partial<ToolSpec>): ToolDefinitionError {
  try {
    defineTool(spec(overrides));
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    return error as ToolDefinitionError;
  }
  throw new Error(`defineTool accepted ${JSON.stringify(overrides)}`);
}

describe("defineTool", () => {
  it("accepts ids of letters, digits, _ and - up to 64 characters", () => {
    for (const id of ["a", "web_search", "Fetch-URL_2", "x".repeat(64), "__", "-"]) {
      expect(defineTool(spec({ id })).id).toBe(id);
    }
  });

  it("rejects a malformed id with an error that names it and the rule", () => {
    expect(definitionError({ id: "web search" }).message).toBe(
      'Tool id "web search" is not allowed. Use 1 to 64 letters, digits, "_" or "-" (providers reject other function names), e.g. "web_search".',
    );
    for (const id of ["", "x".repeat(65), "a.b", "mcp:github", "héllo", "a/b", "tab\t"]) {
      expect(definitionError({ id }).message).toContain(JSON.stringify(id));
    }
  });

  it("refuses the reserved ids all, mcp and tool_search", () => {
    for (const id of ["all", "mcp", "tool_search", "__proto__"]) {
      expect(definitionError({ id }).message).toBe(
        `Tool id "${id}" is reserved (it is an availability key or the discovery tool). Choose another id.`,
      );
    }
  });

  it("refuses an empty or blank description, naming the tool", () => {
    for (const description of ["", "   ", "\n\t"]) {
      expect(definitionError({ id: "quiet", description }).message).toBe(
        'Tool "quiet" has no description. The model decides when to call a tool from its description: write one sentence saying what it does.',
      );
    }
  });

  it("accepts family keys like mcp:github and plain lowercase names", () => {
    for (const family of ["mcp:github", "plugin", "plugin:notes", "mcp:my.server-2"]) {
      expect(defineTool(spec({ family })).family).toBe(family);
    }
  });

  it("refuses a malformed family with an example of a good one", () => {
    expect(definitionError({ family: "GitHub" }).message).toBe(
      'Tool "lookup" has family "GitHub", which is not a family key. Use a lowercase name, optionally with a ":sub" part, like "mcp:github".',
    );
    for (const family of ["mcp:", ":github", "mcp:git hub", "a:b:c", ""]) {
      expect(definitionError({ family }).message).toContain(`family "${family}"`);
    }
  });

  it("requires an mcp:<server> family for an id named like an MCP tool", () => {
    const message =
      'Tool "mcp__github__x" is named like an MCP tool but has no "mcp:<server>" family. Give it family "mcp:<server>" or rename it.';
    expect(definitionError({ id: "mcp__github__x" }).message).toBe(message);
    expect(definitionError({ id: "mcp__github__x", family: "plugin:github" }).message).toBe(
      message,
    );
    expect(defineTool(spec({ id: "mcp__github__x", family: "mcp:github" })).family).toBe(
      "mcp:github",
    );
  });

  it("turns zod parameters into JSON Schema without $schema", () => {
    const defined = defineTool(
      spec({ parameters: z.object({ b: z.string().describe("bee"), a: z.number().optional() }) }),
    );
    expect(defined.jsonSchema).toEqual({
      type: "object",
      properties: { b: { type: "string", description: "bee" }, a: { type: "number" } },
      required: ["b"],
    });
    expect(defined.jsonSchema).not.toHaveProperty("$schema");
  });

  it("refuses parameters that are not an object of named arguments", () => {
    expect(definitionError({ parameters: z.string() }).message).toBe(
      'Tool "lookup" must take an object of named arguments; wrap them in z.object({ ... }).',
    );
  });

  it("puts the Chat Completions function tool on the wire as canonical JSON with sorted keys", () => {
    const defined = defineTool(
      spec({
        id: "x",
        description: "Does x.",
        parameters: z.object({ b: z.string().describe("bee"), a: z.number().optional() }),
      }),
    );
    expect(defined.wire).toBe(
      '{"function":{"description":"Does x.","name":"x","parameters":{"properties":{"a":{"type":"number"},"b":{"description":"bee","type":"string"}},"required":["b"],"type":"object"}},"type":"function"}',
    );
  });

  it("keeps an MCP server's JSON Schema as given, minus nothing, in canonical bytes", () => {
    const defined = defineJsonSchemaTool({
      id: "mcp__fs__read",
      family: "mcp:fs",
      description: "Reads a file.",
      inputSchema: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
      execute: () => "",
    });
    expect(defined.wire).toBe(
      '{"function":{"description":"Reads a file.","name":"mcp__fs__read","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},"type":"function"}',
    );
  });

  it("returns a frozen tool", () => {
    expect(Object.isFrozen(defineTool(spec()))).toBe(true);
  });
});

describe("canonicalJson", () => {
  it("gives equal values equal bytes whatever their key order", () => {
    const objectArb = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });
    fc.assert(
      fc.property(objectArb, (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("refuses a value with no JSON form", () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it("refuses a value nested 100,000 deep with a message that says so, not a bare stack overflow", () => {
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`);
    expect(() => canonicalJson(deep)).toThrow(
      new TypeError(
        "canonicalJson: the value nests too deep to serialize (thousands of levels); cap its depth before serializing it",
      ),
    );
  });
});

describe("defineJsonSchemaTool and defineTool", () => {
  it("say which argument keys their schema refuses", () => {
    const zodTool = defineTool({
      id: "z",
      description: "A zod tool.",
      parameters: z.object({}),
      execute: () => "",
    });
    const jsonTool = defineJsonSchemaTool({
      id: "j",
      description: "A JSON Schema tool.",
      inputSchema: { type: "object" },
      execute: () => "",
    });
    expect(zodTool.keyPolicy).toBe("closed");
    expect(jsonTool.keyPolicy).toBe("declared");
  });
});

describe("ToolRegistry", () => {
  it("refuses a second tool with the same id, naming the id and the fix", () => {
    const registry = new ToolRegistry([tool("lookup")]);
    let thrown: unknown;
    try {
      registry.register(tool("lookup", { description: "Another lookup." }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DuplicateToolError);
    expect((thrown as DuplicateToolError).id).toBe("lookup");
    expect((thrown as Error).message).toBe(
      'A tool with id "lookup" is already registered. Tool ids must be unique: rename one of them, or unregister the old one first (registry.unregister("lookup")).',
    );
    expect(registry.get("lookup")?.description).toBe("Does lookup.");
  });

  it("lists tools sorted by id in code-unit order, whatever the insertion order", () => {
    const ids = ["b", "a", "B", "_x", "-y", "a1", "A", "z9", "0"];
    const registry = new ToolRegistry(ids.map((id) => tool(id)));
    expect(registry.list().map((t) => t.id)).toEqual([
      "-y",
      "0",
      "A",
      "B",
      "_x",
      "a",
      "a1",
      "b",
      "z9",
    ]);
  });

  it("lists the same tools in the same order for any registration order", () => {
    const idArb = fc
      .stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
      .filter((id) => !RESERVED_IDS.has(id) && !id.startsWith("mcp__"));
    fc.assert(
      fc.property(
        fc.uniqueArray(idArb, { maxLength: 20 }),
        fc.array(fc.integer(), { minLength: 20, maxLength: 20 }),
        (ids, order) => {
          const tools = ids.map((id) => tool(id));
          const a = new ToolRegistry(tools).list();
          const b = new ToolRegistry(permute(tools, order)).list();
          expect(b.map((t) => t.wire)).toEqual(a.map((t) => t.wire));
          expect(a.map((t) => t.id)).toEqual([...ids].sort(compareIds));
        },
      ),
    );
  });

  it("returns the same list until the registry changes, and bumps its version on change", () => {
    const registry = new ToolRegistry([tool("a")]);
    const first = registry.list();
    const version = registry.version;
    expect(registry.list()).toBe(first);
    registry.register(tool("b"));
    expect(registry.list()).not.toBe(first);
    expect(registry.version).toBe(version + 1);
    expect(registry.size).toBe(2);
  });

  it("unregisters a tool and says whether it was there", () => {
    const registry = new ToolRegistry([tool("a"), tool("b")]);
    const version = registry.version;
    expect(registry.unregister("a")).toBe(true);
    expect(registry.has("a")).toBe(false);
    expect(registry.list().map((t) => t.id)).toEqual(["b"]);
    expect(registry.unregister("a")).toBe(false);
    expect(registry.version).toBe(version + 1);
  });

  it("replaces a family's tools at once and leaves other families alone", () => {
    const registry = new ToolRegistry([
      mcpTool("github", "create_issue"),
      mcpTool("github", "list_issues"),
      mcpTool("fs", "read"),
      tool("web_search"),
    ]);
    registry.replaceFamily("mcp:github", [mcpTool("github", "search_code")]);
    expect(registry.list().map((t) => t.id)).toEqual([
      "mcp__fs__read",
      "mcp__github__search_code",
      "web_search",
    ]);
    expect(registry.get("mcp__github__search_code")?.family).toBe("mcp:github");
    expect(registry.families()).toEqual(["mcp:fs", "mcp:github"]);
  });

  it("replacing a family with nothing removes it", () => {
    const registry = new ToolRegistry([mcpTool("github", "a"), tool("b")]);
    registry.replaceFamily("mcp:github", []);
    expect(registry.list().map((t) => t.id)).toEqual(["b"]);
    expect(registry.families()).toEqual([]);
  });

  it("refuses a family replacement that collides with another tool, changing nothing", () => {
    const registry = new ToolRegistry([
      mcpTool("github", "a"),
      tool("mcp__fs__read", { family: "mcp:fs" }),
    ]);
    const before = registry.list();
    const version = registry.version;
    expect(() =>
      registry.replaceFamily("mcp:github", [
        mcpTool("github", "b"),
        tool("mcp__fs__read", { family: "mcp:fs" }),
      ]),
    ).toThrow(DuplicateToolError);
    expect(() =>
      registry.replaceFamily("mcp:github", [mcpTool("github", "b"), mcpTool("github", "b")]),
    ).toThrow(DuplicateToolError);
    expect(registry.list()).toBe(before);
    expect(registry.version).toBe(version);
  });

  it("lists its families sorted and unique", () => {
    const registry = new ToolRegistry([
      mcpTool("slack", "post"),
      mcpTool("github", "a"),
      mcpTool("github", "b"),
      tool("notes", { family: "plugin:notes" }),
      tool("plain"),
    ]);
    expect(registry.families()).toEqual(["mcp:github", "mcp:slack", "plugin:notes"]);
  });
});

describe("a turn's snapshot of the registry", () => {
  it("keeps the tools it was taken with when the live registry changes", () => {
    const live = new ToolRegistry([tool("a"), tool("b")]);
    const snapshot = live.snapshot();
    live.unregister("a");
    live.register(tool("c"));
    expect(snapshot.list().map((t) => t.id)).toEqual(["a", "b"]);
    expect(snapshot.get("a")?.id).toBe("a");
    expect(live.list().map((t) => t.id)).toEqual(["b", "c"]);
  });

  it("is the same copy until the registry changes, and a new one after", () => {
    const live = new ToolRegistry([tool("a")]);
    const first = live.snapshot();
    expect(live.snapshot()).toBe(first);
    live.register(tool("b"));
    expect(live.snapshot()).not.toBe(first);
    expect(live.snapshot().has("b")).toBe(true);
  });

  it("refuses changes, naming the live registry as the place to register", () => {
    const snapshot = new ToolRegistry([tool("a")]).snapshot();
    expect(() => snapshot.register(tool("b"))).toThrow(/frozen snapshot.*live registry/);
    expect(() => snapshot.replaceFamily("mcp:x", [])).toThrow(/frozen snapshot/);
    expect(snapshot.snapshot()).toBe(snapshot);
  });
});
