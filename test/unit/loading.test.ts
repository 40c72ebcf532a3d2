import { describe, expect, it } from "vitest";
import { EMPTY_INTENT, mount, setKey, setMode } from "../../src/core/availability/intent.ts";
import type { ScopeStack } from "../../src/core/availability/scopes.ts";
import {
  TOOL_SEARCH_DIGEST,
  TOOL_SEARCH_ID,
  TOOL_SEARCH_WIRE,
} from "../../src/core/loading/discovery-tool.ts";
import { appendLoaded, contractHash } from "../../src/core/loading/freeze.ts";
import {
  LOAD_MODES,
  type LoadMode,
  parseLoadMode,
  UnknownModeError,
} from "../../src/core/loading/modes.ts";
import { enabledIds, freeze, mcpTool, registryOf, tool } from "../support/tools.ts";

const registry = registryOf(
  tool("current_time"),
  tool("fetch_url"),
  tool("web_search"),
  tool("run_python", { defer: true }),
  tool("generate_image", { defer: true }),
  mcpTool("github", "create_issue"),
  mcpTool("github", "list_issues"),
);
const essential = ["current_time", "web_search"];
const wire = (id: string) => registry.get(id)?.wire as string;
const array = (ids: string[]) =>
  `[${ids.map((id) => (id === TOOL_SEARCH_ID ? TOOL_SEARCH_WIRE : wire(id))).join(",")}]`;
const inMode = (mode: LoadMode, scopes: ScopeStack = {}, intent = EMPTY_INTENT) =>
  freeze(registry, { scopes, intent: setMode(intent, mode), essential });

describe("parseLoadMode", () => {
  it("reads every mode in any case, with surrounding space", () => {
    for (const mode of LOAD_MODES) {
      expect(parseLoadMode(mode)).toBe(mode);
      expect(parseLoadMode(mode.toUpperCase())).toBe(mode);
    }
    expect(parseLoadMode(" Discover ")).toBe("discover");
  });

  it("reads the seeds' names pi and omp", () => {
    expect(parseLoadMode("pi")).toBe("minimal");
    expect(parseLoadMode("PI")).toBe("minimal");
    expect(parseLoadMode("omp")).toBe("discover");
    expect(parseLoadMode("Omp")).toBe("discover");
  });

  it("refuses an unknown label with the list of modes", () => {
    expect(() => parseLoadMode("turbo")).toThrow(UnknownModeError);
    expect(() => parseLoadMode("turbo")).toThrow(
      'Unknown load mode "turbo". Use one of: full, default, minimal (alias pi), discover (alias omp).',
    );
    for (const label of ["", "ful", "default mode", "pi,omp"]) {
      expect(() => parseLoadMode(label), label).toThrow(UnknownModeError);
    }
  });

  it("refuses labels that are Object.prototype members instead of returning them", () => {
    for (const label of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      expect(() => parseLoadMode(label), label).toThrow(UnknownModeError);
    }
  });
});

describe("load modes", () => {
  it("full: every enabled tool is resident, deferred ones too, and there is no discovery", () => {
    const contract = inMode("full");
    expect(contract.resident).toEqual(registry.list().map((t) => t.id));
    expect(contract.tools).toBe(array(registry.list().map((t) => t.id)));
    expect(contract.deferred).toEqual([]);
    expect(contract.discovery).toBe(false);
    expect(contract.catalog).toBe("");
  });

  it("default: all but defer tools are resident, then tool_search, and the catalog lists the rest", () => {
    const contract = inMode("default");
    expect(contract.resident).toEqual(["current_time", "fetch_url", "web_search", TOOL_SEARCH_ID]);
    expect(contract.tools).toBe(array(contract.resident as string[]));
    expect(contract.deferred).toEqual([
      "generate_image",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
      "run_python",
    ]);
    // An MCP server's tools share one line, their prefix written once.
    expect(contract.catalog).toBe(
      "generate_image\nmcp__github__{create_issue,list_issues}\nrun_python\n",
    );
    expect(contract.discovery).toBe(true);
  });

  it("default is the mode when no scope sets one", () => {
    expect(freeze(registry, { essential }).mode).toBe("default");
  });

  it("minimal: only the essential set is resident, with no discovery and an empty catalog", () => {
    const contract = inMode("minimal");
    expect(contract.resident).toEqual(["current_time", "web_search"]);
    expect(contract.discovery).toBe(false);
    expect(contract.catalog).toBe("");
    expect(contract.deferred).toEqual([
      "fetch_url",
      "generate_image",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
      "run_python",
    ]);
  });

  it("discover: the essential set plus tool_search, and everything else in the catalog", () => {
    const contract = inMode("discover");
    expect(contract.resident).toEqual(["current_time", "web_search", TOOL_SEARCH_ID]);
    expect(contract.catalog).toBe(
      "fetch_url\ngenerate_image\nmcp__github__{create_issue,list_issues}\nrun_python\n",
    );
  });

  it("never disables anything: every mode enables the same tools", () => {
    const scopes: ScopeStack = { global: { keys: { fetch_url: false, "mcp:github": true } } };
    const enabled = enabledIds(inMode("full", scopes));
    expect(enabled).not.toContain("fetch_url");
    for (const mode of LOAD_MODES) {
      const contract = inMode(mode, scopes);
      expect(enabledIds(contract), mode).toEqual(enabled);
      const shipped = [
        ...contract.resident.filter((id) => id !== TOOL_SEARCH_ID),
        ...contract.deferred,
      ];
      expect(shipped.sort(), mode).toEqual([...enabled].sort());
    }
  });

  it("never defers an essential tool, even one marked defer", () => {
    const reg = registryOf(tool("recall", { defer: true }), tool("big", { defer: true }));
    for (const mode of LOAD_MODES) {
      const contract = freeze(reg, { intent: setMode(EMPTY_INTENT, mode), essential: ["recall"] });
      expect(contract.resident, mode).toContain("recall");
      expect(contract.deferred, mode).not.toContain("recall");
    }
  });

  it("never makes a disabled essential tool resident", () => {
    const contract = inMode("minimal", { global: { keys: { current_time: false } } });
    expect(contract.resident).toEqual(["web_search"]);
    expect(contract.deferred).not.toContain("current_time");
  });

  for (const scope of ["global", "workspace", "channel", "runtime"] as const) {
    it(`keeps a tool switched on by its own id in the ${scope} scope resident in every mode`, () => {
      for (const mode of LOAD_MODES) {
        const contract = inMode(mode, { [scope]: { keys: { run_python: true } } });
        expect(contract.resident, mode).toContain("run_python");
        expect(contract.deferred, mode).not.toContain("run_python");
      }
    });
  }

  it("keeps a tool switched on by its own id in the conversation resident in every mode", () => {
    for (const mode of LOAD_MODES) {
      const contract = inMode(mode, {}, setKey(EMPTY_INTENT, "mcp__github__list_issues", "on"));
      expect(contract.resident, mode).toContain("mcp__github__list_issues");
      expect(contract.deferred, mode).not.toContain("mcp__github__list_issues");
    }
  });

  it("does not make a family switched on as a whole resident under a curated mode", () => {
    const contract = inMode("discover", {}, setKey(EMPTY_INTENT, "mcp:github", "on"));
    expect(contract.deferred).toContain("mcp__github__create_issue");
    expect(contract.resident).not.toContain("mcp__github__create_issue");
  });

  it("takes the mode from the deepest scope that sets one", () => {
    const scopes: ScopeStack = {
      global: { mode: "full" },
      channel: { mode: "minimal" },
    };
    expect(freeze(registry, { scopes }).mode).toBe("minimal");
    expect(freeze(registry, { scopes, intent: setMode(EMPTY_INTENT, "discover") }).mode).toBe(
      "discover",
    );
    expect(
      freeze(registry, {
        scopes: { ...scopes, runtime: { mode: "full" } },
        intent: setMode(EMPTY_INTENT, "discover"),
      }).mode,
    ).toBe("full");
  });
});

describe("discovery mounts", () => {
  it("puts mounted tools after tool_search, in mount order", () => {
    const intent = mount(EMPTY_INTENT, ["run_python", "mcp__github__create_issue"]);
    const contract = inMode("default", {}, intent);
    expect(contract.resident).toEqual([
      "current_time",
      "fetch_url",
      "web_search",
      TOOL_SEARCH_ID,
      "run_python",
      "mcp__github__create_issue",
    ]);
    expect(contract.tools).toBe(array(contract.resident as string[]));
    expect(contract.mounted).toEqual(["run_python", "mcp__github__create_issue"]);
    expect(contract.catalog).toBe("generate_image\nmcp__github__list_issues\n");
  });

  it("keeps tool_search while something is mounted, even with nothing left to defer", () => {
    const reg = registryOf(tool("a"), tool("b", { defer: true }));
    const contract = freeze(reg, { intent: mount(EMPTY_INTENT, ["b"]) });
    expect(contract.resident).toEqual(["a", TOOL_SEARCH_ID, "b"]);
    expect(contract.deferred).toEqual([]);
    expect(contract.catalog).toBe("");
    expect(contract.discovery).toBe(true);
  });

  it("keeps mounted tools resident in minimal mode, without tool_search", () => {
    const contract = inMode("minimal", {}, mount(EMPTY_INTENT, ["run_python"]));
    expect(contract.resident).toEqual(["current_time", "web_search", "run_python"]);
    expect(contract.discovery).toBe(false);
  });

  it("drops a mount whose tool is now disabled, unregistered or already resident", () => {
    const intent = mount(EMPTY_INTENT, [
      "run_python",
      "retired_tool",
      "fetch_url",
      "generate_image",
    ]);
    const contract = inMode("default", { channel: { keys: { run_python: false } } }, intent);
    expect(contract.mounted).toEqual(["generate_image"]);
    expect(contract.resident).toEqual([
      "current_time",
      "fetch_url",
      "web_search",
      TOOL_SEARCH_ID,
      "generate_image",
    ]);
  });
});

describe("tool_search presence", () => {
  const cases: Array<[string, LoadMode, boolean, boolean]> = [
    ["full mode", "full", true, false],
    ["default mode with deferred tools", "default", true, true],
    ["default mode with nothing deferred", "default", false, false],
    ["discover mode with deferred tools", "discover", true, true],
    ["discover mode with nothing deferred", "discover", false, false],
    ["minimal mode with deferred tools", "minimal", true, false],
  ];
  for (const [name, mode, somethingDeferrable, expected] of cases) {
    it(`is ${expected ? "present" : "absent"} in ${name}`, () => {
      const reg = somethingDeferrable
        ? registryOf(tool("a"), tool("b", { defer: true }))
        : registryOf(tool("a"));
      const contract = freeze(reg, { intent: setMode(EMPTY_INTENT, mode), essential: ["a"] });
      expect(contract.discovery).toBe(expected);
      expect(contract.resident.includes(TOOL_SEARCH_ID)).toBe(expected);
      expect(contract.callable.has(TOOL_SEARCH_ID)).toBe(expected);
    });
  }
});

describe("the contract", () => {
  it("hashes mode, tools and catalog: equal inputs, equal hashes; any change, another hash", () => {
    const a = inMode("default");
    const b = inMode("default");
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(a.hash).toBe(contractHash(a.mode, a.digests, a.catalog));
    expect(contractHash("full", a.digests, a.catalog)).not.toBe(a.hash);
    expect(contractHash(a.mode, a.digests, "")).not.toBe(a.hash);
    expect(contractHash(a.mode, a.digests.slice(1), a.catalog)).not.toBe(a.hash);
    expect(inMode("discover").hash).not.toBe(a.hash);
  });

  it("carries one digest per resident tool, in array order", () => {
    const contract = inMode("default", {}, mount(EMPTY_INTENT, ["run_python"]));
    expect(contract.digests).toEqual(
      contract.resident.map((id) =>
        id === TOOL_SEARCH_ID ? TOOL_SEARCH_DIGEST : registry.get(id)?.digest,
      ),
    );
    const after = appendLoaded(contract, registry, ["generate_image"]);
    expect(after.digests).toEqual([...contract.digests, registry.get("generate_image")?.digest]);
  });

  it("makes exactly the resident tools callable", () => {
    const contract = inMode("default");
    expect([...contract.callable].sort()).toEqual([...contract.resident].sort());
  });
});

describe("appendLoaded", () => {
  const before = inMode("default");

  it("appends the loaded tools' wires and leaves the prefix unchanged", () => {
    const after = appendLoaded(before, registry, ["run_python", "mcp__github__list_issues"]);
    const prefix = before.tools.slice(0, -1);
    expect(after.tools.startsWith(prefix)).toBe(true);
    expect(after.tools).toBe(
      `${prefix},${wire("run_python")},${wire("mcp__github__list_issues")}]`,
    );
    expect(JSON.parse(after.tools)).toHaveLength(6);
  });

  it("makes them callable and mounted, and takes them out of the deferred list", () => {
    const after = appendLoaded(before, registry, ["run_python"]);
    expect(after.callable.has("run_python")).toBe(true);
    expect(after.mounted).toEqual(["run_python"]);
    expect(after.resident.at(-1)).toBe("run_python");
    expect(after.deferred).toEqual([
      "generate_image",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
    ]);
    expect(after.hash).not.toBe(before.hash);
  });

  it("leaves the catalog text as it was: the system prompt does not change mid-turn", () => {
    const after = appendLoaded(before, registry, ["run_python"]);
    expect(after.catalog).toBe(before.catalog);
  });

  it("loads only deferred tools, once each", () => {
    const after = appendLoaded(before, registry, [
      "run_python",
      "run_python",
      "fetch_url",
      "nope",
      TOOL_SEARCH_ID,
    ]);
    expect(after.resident.slice(before.resident.length)).toEqual(["run_python"]);
  });

  it("returns the same contract when nothing loads", () => {
    expect(appendLoaded(before, registry, [])).toBe(before);
    expect(appendLoaded(before, registry, ["fetch_url", "nope"])).toBe(before);
    const once = appendLoaded(before, registry, ["run_python"]);
    expect(appendLoaded(once, registry, ["run_python"])).toBe(once);
  });

  it("starts the next turn with the same tools bytes once the loads are mounted", () => {
    const after = appendLoaded(before, registry, ["generate_image", "run_python"]);
    const next = inMode("default", {}, mount(EMPTY_INTENT, after.mounted));
    expect(next.tools).toBe(after.tools);
    expect(next.resident).toEqual(after.resident);
  });
});
