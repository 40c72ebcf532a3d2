import { describe, expect, it } from "vitest";
import { DEMO_CAPABILITIES, demoTools, syntheticTools } from "../../bench/demo-registry.ts";

const FAMILIES = ["mcp:github", "mcp:filesystem"];

describe("demoTools", () => {
  it("has at least 25 built-in tools and at least 10 tools per MCP family", () => {
    const tools = demoTools();
    expect(tools.filter((tool) => !tool.family?.startsWith("mcp:")).length).toBeGreaterThanOrEqual(
      25,
    );
    for (const family of FAMILIES) {
      const members = tools.filter((tool) => tool.family === family);
      expect(members.length, family).toBeGreaterThanOrEqual(10);
      const server = family.slice("mcp:".length);
      for (const tool of members) expect(tool.id.startsWith(`mcp__${server}__`)).toBe(true);
    }
  });

  it("gives every tool a unique id", () => {
    const ids = demoTools().map((tool) => tool.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("puts valid JSON on the wire, named by the tool id", () => {
    for (const tool of demoTools()) {
      const wire = JSON.parse(tool.wire) as { type: string; function: { name: string } };
      expect(wire.type).toBe("function");
      expect(wire.function.name).toBe(tool.id);
    }
  });

  it("returns a fresh array with the same bytes on every call", () => {
    const first = demoTools();
    const second = demoTools();
    expect(first).not.toBe(second);
    expect(second.map((tool) => tool.wire)).toEqual(first.map((tool) => tool.wire));
  });

  it("defers the MCP tools and a handful of big built-ins", () => {
    const tools = demoTools();
    for (const tool of tools.filter((t) => t.family?.startsWith("mcp:"))) {
      expect(tool.defer, tool.id).toBe(true);
    }
    const deferredBuiltins = tools.filter((t) => !t.family && t.defer);
    expect(deferredBuiltins.length).toBeGreaterThanOrEqual(4);
    expect(deferredBuiltins.length).toBeLessThanOrEqual(6);
  });

  it("declares every capability a demo tool needs", () => {
    for (const tool of demoTools()) {
      if (tool.capability) expect(DEMO_CAPABILITIES, tool.id).toHaveProperty(tool.capability);
    }
    expect(DEMO_CAPABILITIES.sandbox).toEqual({
      available: false,
      reason: "no code sandbox configured",
    });
  });
});

describe("syntheticTools", () => {
  it("makes 1,000 tools with unique ids", () => {
    const ids = syntheticTools(1000).map((tool) => tool.id);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
  });

  it("is deterministic: the same n gives the same wire bytes", () => {
    const first = syntheticTools(1000).map((tool) => tool.wire);
    const second = syntheticTools(1000).map((tool) => tool.wire);
    expect(second).toEqual(first);
  });

  it("makes a smaller registry a prefix of a larger one", () => {
    const small = syntheticTools(50).map((tool) => tool.wire);
    const large = syntheticTools(200).map((tool) => tool.wire);
    expect(large.slice(0, 50)).toEqual(small);
  });

  it("mixes families and defers about one tool in five", () => {
    const tools = syntheticTools(1000);
    const families = new Set(tools.map((tool) => tool.family ?? "builtin"));
    expect(families.size).toBeGreaterThanOrEqual(5);
    const deferred = tools.filter((tool) => tool.defer).length;
    expect(deferred).toBeGreaterThan(150);
    expect(deferred).toBeLessThan(250);
  });

  it("declares every capability a synthetic tool needs", () => {
    for (const tool of syntheticTools(200)) {
      if (tool.capability) expect(DEMO_CAPABILITIES, tool.id).toHaveProperty(tool.capability);
    }
  });
});
