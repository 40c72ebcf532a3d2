import { describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import {
  EMPTY_INTENT,
  type Intent,
  mount,
  pick,
  setKey,
  setToolset,
  setWebSearch,
} from "../../src/core/availability/intent.ts";
import {
  type AvailabilityPolicy,
  conversationLayer,
  explain,
  layersOf,
  type Resolution,
  resolveAvailability,
  type ToolState,
} from "../../src/core/availability/resolve.ts";
import type { ScopeStack } from "../../src/core/availability/scopes.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import type { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineToolsets } from "../../src/core/tools/toolsets.ts";
import { mcpTool, recordingLogger, registryOf, tool } from "../support/tools.ts";

const registry = registryOf(
  tool("web_search", { capability: "search_provider" }),
  tool("fetch_url"),
  tool("current_time"),
  tool("describe_image", { capability: "vision" }),
  tool("notes_add", { family: "plugin:notes" }),
  mcpTool("github", "create_issue"),
  mcpTool("github", "list_issues"),
  mcpTool("filesystem", "read_file"),
);
const capabilities: Capabilities = { search_provider: { available: true } };

function resolve(
  scopes: ScopeStack = {},
  intent: Intent = EMPTY_INTENT,
  policy: AvailabilityPolicy = {},
  reg: ToolRegistry = registry,
  caps: Capabilities = capabilities,
): Resolution {
  return resolveAvailability(reg, scopes, intent, caps, { warnings: new WarnOnce(), ...policy });
}

const stateOf = (resolution: Resolution, id: string): ToolState | undefined =>
  resolution.states.get(id);
const statusOf = (resolution: Resolution, id: string) => stateOf(resolution, id)?.status;

describe("scope layers", () => {
  it("orders the layers deepest first: runtime, conversation, channel, workspace, global", () => {
    const layers = layersOf({ global: {}, workspace: {}, channel: {}, runtime: {} }, EMPTY_INTENT);
    expect(layers.map((l) => l.scope)).toEqual([
      "runtime",
      "conversation",
      "channel",
      "workspace",
      "global",
    ]);
    expect(layersOf({}, EMPTY_INTENT).map((l) => l.scope)).toEqual(["conversation"]);
  });

  it("turns the master switch into the all key and web search into the web_search key", () => {
    let intent = setKey(EMPTY_INTENT, "all", "off");
    intent = setWebSearch(setToolset(intent, "research"), "on");
    expect(conversationLayer(intent)).toEqual({
      keys: { all: false, web_search: true },
      toolset: "research",
    });
    expect(conversationLayer(EMPTY_INTENT)).toEqual({ keys: {} });
  });

  it("lets a per-key decision on web_search override the web-search layer", () => {
    const intent = setKey(setWebSearch(EMPTY_INTENT, "on"), "web_search", "off");
    expect(conversationLayer(intent).keys).toEqual({ web_search: false });
    expect(statusOf(resolve({}, intent), "web_search")).toBe("disabled");
  });
});

describe("the capability floor", () => {
  it("makes a tool absent when the host lacks its capability, with the reason", () => {
    expect(stateOf(resolve(), "describe_image")).toEqual({
      id: "describe_image",
      status: "absent",
      capability: "vision",
      reason: 'this host does not provide the "vision" capability',
    });
  });

  it("makes a tool absent when its capability is present but unavailable, with that reason", () => {
    const caps: Capabilities = {
      search_provider: { available: false, reason: "no API key is set" },
    };
    expect(stateOf(resolve({}, EMPTY_INTENT, {}, registry, caps), "web_search")).toEqual({
      id: "web_search",
      status: "absent",
      capability: "search_provider",
      reason: "no API key is set",
    });
  });

  it("keeps an absent tool absent whatever every scope says", () => {
    const on = { keys: { describe_image: true, all: true } };
    const intent = setKey(setKey(EMPTY_INTENT, "describe_image", "on"), "all", "on");
    const resolution = resolve(
      { global: on, workspace: on, channel: on, runtime: on },
      pick(intent, ["describe_image"]),
    );
    expect(statusOf(resolution, "describe_image")).toBe("absent");
  });

  it("lets an available capability through to the scopes", () => {
    expect(statusOf(resolve(), "web_search")).toBe("enabled");
  });
});

describe("deepest scope wins, per key", () => {
  it("lets a deeper scope turn on what a shallower one turned off", () => {
    const resolution = resolve({
      global: { keys: { fetch_url: false } },
      channel: { keys: { fetch_url: true } },
    });
    expect(stateOf(resolution, "fetch_url")).toEqual({
      id: "fetch_url",
      status: "enabled",
      by: { kind: "scope", scope: "channel", key: "fetch_url" },
      standing: true,
    });
  });

  it("lets a deeper scope turn off what a shallower one turned on", () => {
    const resolution = resolve(
      { workspace: { keys: { fetch_url: true } } },
      setKey(EMPTY_INTENT, "fetch_url", "off"),
    );
    expect(stateOf(resolution, "fetch_url")).toEqual({
      id: "fetch_url",
      status: "disabled",
      by: { kind: "scope", scope: "conversation", key: "fetch_url" },
    });
  });

  it("lets the deepest scope that mentions any of a tool's keys decide, even by a broad key", () => {
    const resolution = resolve(
      { channel: { keys: { fetch_url: true } } },
      setKey(EMPTY_INTENT, "all", "off"),
    );
    expect(stateOf(resolution, "fetch_url")).toEqual({
      id: "fetch_url",
      status: "disabled",
      by: { kind: "scope", scope: "conversation", key: "all" },
    });
  });

  it("uses the most specific key within one scope: id, then family, then mcp, then all", () => {
    const resolution = resolve({
      global: {
        keys: {
          all: false,
          mcp: true,
          "mcp:github": false,
          mcp__github__list_issues: true,
          current_time: true,
        },
      },
    });
    const by = (id: string) => {
      const state = stateOf(resolution, id);
      return state && "by" in state ? [state.status, state.by] : undefined;
    };
    expect(by("mcp__github__list_issues")).toEqual([
      "enabled",
      { kind: "scope", scope: "global", key: "mcp__github__list_issues" },
    ]);
    expect(by("mcp__github__create_issue")).toEqual([
      "disabled",
      { kind: "scope", scope: "global", key: "mcp:github" },
    ]);
    expect(by("mcp__filesystem__read_file")).toEqual([
      "enabled",
      { kind: "scope", scope: "global", key: "mcp" },
    ]);
    expect(by("fetch_url")).toEqual(["disabled", { kind: "scope", scope: "global", key: "all" }]);
    expect(by("current_time")).toEqual([
      "enabled",
      { kind: "scope", scope: "global", key: "current_time" },
    ]);
  });

  it("keeps mcp:filesystem on under a shallower mcp: false", () => {
    const resolution = resolve(
      { global: { keys: { mcp: false } } },
      setKey(EMPTY_INTENT, "mcp:filesystem", "on"),
    );
    expect(stateOf(resolution, "mcp__filesystem__read_file")).toMatchObject({
      status: "enabled",
      by: { kind: "scope", scope: "conversation", key: "mcp:filesystem" },
      standing: false,
    });
    expect(stateOf(resolution, "mcp__github__create_issue")).toMatchObject({
      status: "disabled",
      by: { kind: "scope", scope: "global", key: "mcp" },
    });
  });

  it("lets a runtime mcp: false beat any shallower mcp:github: true", () => {
    const resolution = resolve(
      {
        runtime: { keys: { mcp: false } },
        channel: { keys: { "mcp:github": true } },
      },
      setKey(EMPTY_INTENT, "mcp:github", "on"),
    );
    for (const id of ["mcp__github__create_issue", "mcp__github__list_issues"]) {
      expect(stateOf(resolution, id)).toMatchObject({
        status: "disabled",
        by: { kind: "scope", scope: "runtime", key: "mcp" },
      });
    }
  });

  it("kills every MCP family with mcp: false, including one that connects later", () => {
    const live = registryOf(mcpTool("github", "create_issue"), tool("fetch_url"));
    const scopes: ScopeStack = { global: { keys: { mcp: false } } };
    live.register(mcpTool("newserver", "do_thing"));
    const resolution = resolve(scopes, EMPTY_INTENT, {}, live);
    expect(statusOf(resolution, "mcp__newserver__do_thing")).toBe("disabled");
    expect(statusOf(resolution, "mcp__github__create_issue")).toBe("disabled");
    expect(statusOf(resolution, "fetch_url")).toBe("enabled");
  });

  it("leaves non-MCP families alone under mcp: false", () => {
    const resolution = resolve({ global: { keys: { mcp: false } } });
    expect(statusOf(resolution, "notes_add")).toBe("enabled");
  });

  it("switches a whole non-MCP family by its key", () => {
    const resolution = resolve({ workspace: { keys: { "plugin:notes": false } } });
    expect(stateOf(resolution, "notes_add")).toMatchObject({
      status: "disabled",
      by: { kind: "scope", scope: "workspace", key: "plugin:notes" },
    });
  });

  it("switches web_search off from the conversation's web-search layer", () => {
    const resolution = resolve(
      { channel: { keys: { web_search: true } } },
      setWebSearch(EMPTY_INTENT, "off"),
    );
    expect(stateOf(resolution, "web_search")).toMatchObject({
      status: "disabled",
      by: { kind: "scope", scope: "conversation", key: "web_search" },
    });
  });

  it("marks an on by the tool's own id as standing, and an on by a broader key as not", () => {
    const resolution = resolve({ global: { keys: { fetch_url: true, "mcp:github": true } } });
    expect(stateOf(resolution, "fetch_url")).toMatchObject({ standing: true });
    expect(stateOf(resolution, "mcp__github__create_issue")).toMatchObject({ standing: false });
  });
});

describe("the selection", () => {
  const toolsets = defineToolsets({
    default: { tools: ["current_time", "web_search"], includes: [] },
    research: { tools: ["fetch_url", "mcp:github"], includes: [] },
    files: { tools: ["mcp:filesystem"], includes: [] },
  });

  it("enables every tool no scope mentions under the built-in default toolset", () => {
    const resolution = resolve();
    for (const t of registry.list()) {
      if (t.capability === "vision") continue;
      expect(stateOf(resolution, t.id), t.id).toEqual({
        id: t.id,
        status: "enabled",
        by: { kind: "toolset", toolset: "default" },
        standing: false,
      });
    }
    expect(resolution.selection).toEqual({ kind: "toolset", toolset: "default" });
  });

  it("disables what a configured default toolset leaves out", () => {
    const resolution = resolve({}, EMPTY_INTENT, { toolsets });
    expect(statusOf(resolution, "current_time")).toBe("enabled");
    expect(stateOf(resolution, "fetch_url")).toEqual({
      id: "fetch_url",
      status: "disabled",
      by: { kind: "toolset", toolset: "default" },
    });
  });

  it("uses the deepest scope's toolset", () => {
    const scopes: ScopeStack = {
      global: { toolset: "files" },
      channel: { toolset: "research" },
    };
    const resolution = resolve(scopes, EMPTY_INTENT, { toolsets });
    expect(resolution.selection).toEqual({ kind: "toolset", toolset: "research" });
    expect(statusOf(resolution, "fetch_url")).toBe("enabled");
    expect(statusOf(resolution, "mcp__filesystem__read_file")).toBe("disabled");
    const conversation = resolve(scopes, setToolset(EMPTY_INTENT, "files"), { toolsets });
    expect(conversation.selection).toEqual({ kind: "toolset", toolset: "files" });
    expect(statusOf(conversation, "mcp__filesystem__read_file")).toBe("enabled");
  });

  it("lets a scope key override the selection either way", () => {
    const resolution = resolve(
      { global: { keys: { fetch_url: true, current_time: false } } },
      EMPTY_INTENT,
      { toolsets },
    );
    expect(statusOf(resolution, "fetch_url")).toBe("enabled");
    expect(statusOf(resolution, "current_time")).toBe("disabled");
  });

  it("follows a hand-picked list instead of any toolset", () => {
    const resolution = resolve(
      { channel: { toolset: "research" } },
      pick(setToolset(EMPTY_INTENT, "research"), ["current_time"]),
      { toolsets },
    );
    expect(resolution.selection).toEqual({ kind: "picked" });
    expect(stateOf(resolution, "current_time")).toMatchObject({
      status: "enabled",
      by: { kind: "picked" },
    });
    expect(stateOf(resolution, "fetch_url")).toEqual({
      id: "fetch_url",
      status: "disabled",
      by: { kind: "picked" },
    });
  });

  it("lets a runtime toolset beat the hand-picked list", () => {
    const resolution = resolve(
      { runtime: { toolset: "research" } },
      pick(EMPTY_INTENT, ["current_time"]),
      {
        toolsets,
      },
    );
    expect(resolution.selection).toEqual({ kind: "toolset", toolset: "research" });
    expect(statusOf(resolution, "current_time")).toBe("disabled");
    expect(statusOf(resolution, "fetch_url")).toBe("enabled");
  });

  it("falls back to default on an unknown toolset and warns once", () => {
    const logger = recordingLogger();
    const warnings = new WarnOnce(logger);
    for (let turn = 0; turn < 3; turn++) {
      const resolution = resolve({ channel: { toolset: "reserch" } }, EMPTY_INTENT, {
        toolsets,
        warnings,
      });
      expect(resolution.selection).toEqual({ kind: "toolset", toolset: "default" });
      expect(statusOf(resolution, "current_time")).toBe("enabled");
      expect(statusOf(resolution, "fetch_url")).toBe("disabled");
    }
    expect(logger.messages).toEqual([
      'Toolset "reserch" is not defined (was it removed from the config?); using "default" instead. Known toolsets: default, files, full, research.',
    ]);
  });

  it("warns once about a picked id that no registered tool has", () => {
    const logger = recordingLogger();
    const warnings = new WarnOnce(logger);
    resolve({}, pick(EMPTY_INTENT, ["retired_tool", "fetch_url"]), { warnings });
    resolve({}, pick(EMPTY_INTENT, ["retired_tool"]), { warnings });
    expect(logger.messages).toEqual([
      'A hand-picked tool list names "retired_tool", which no registered tool has; it is ignored.',
    ]);
  });

  it("warns once about a toolset entry that matches nothing", () => {
    const logger = recordingLogger();
    const warnings = new WarnOnce(logger);
    const withGhost = defineToolsets({
      default: { tools: ["current_time", "ghost_tool", "mcp:gone"], includes: [] },
    });
    resolve({}, EMPTY_INTENT, { toolsets: withGhost, warnings });
    resolve({}, EMPTY_INTENT, { toolsets: withGhost, warnings });
    expect(logger.messages).toEqual([
      'Toolset "default" names "ghost_tool", which matches no registered tool or family; it is ignored.',
    ]);
  });
});

describe("unknown keys", () => {
  it("warns once per distinct unknown id, across scopes and turns, and ignores it", () => {
    const logger = recordingLogger();
    const warnings = new WarnOnce(logger);
    const scopes: ScopeStack = {
      global: { keys: { wbe_search: true, fetch_url: false } },
      channel: { keys: { wbe_search: false } },
    };
    const intent = setKey(EMPTY_INTENT, "calender", "on");
    const first = resolve(scopes, intent, { warnings });
    resolve(scopes, intent, { warnings });
    expect(logger.messages).toEqual([
      'Unknown tool "calender" in the conversation scope is ignored. Check the spelling against `switchyard tools` or /tools.',
      'Unknown tool "wbe_search" in the channel scope is ignored. Check the spelling against `switchyard tools` or /tools.',
    ]);
    expect(first.states.has("wbe_search")).toBe(false);
    expect(statusOf(first, "web_search")).toBe("enabled");
    expect(statusOf(first, "fetch_url")).toBe("disabled");
  });

  it("does not warn about structural keys or registered families", () => {
    const logger = recordingLogger();
    resolve(
      {
        global: {
          keys: { all: true, mcp: true, "mcp:not_connected_yet": false, "plugin:notes": true },
        },
      },
      EMPTY_INTENT,
      { warnings: new WarnOnce(logger) },
    );
    expect(logger.messages).toEqual([]);
  });

  it("warns about a family key that is neither registered nor an MCP family", () => {
    const logger = recordingLogger();
    resolve({ global: { keys: { "plugin:gone": false } } }, EMPTY_INTENT, {
      warnings: new WarnOnce(logger),
    });
    expect(logger.messages).toEqual([
      'Unknown tool "plugin:gone" in the global scope is ignored. Check the spelling against `switchyard tools` or /tools.',
    ]);
  });

  it("does not warn about an MCP tool id whose server is not connected right now", () => {
    const logger = recordingLogger();
    resolve({ global: { keys: { mcp__jira__create: false } } }, EMPTY_INTENT, {
      warnings: new WarnOnce(logger),
    });
    expect(logger.messages).toEqual([]);
  });

  it("does not let a tool named like an Object.prototype member be decided by a key nobody set", () => {
    const protoNamed = registryOf(
      tool("constructor"),
      tool("toString"),
      tool("valueOf"),
      tool("fetch_url"),
    );
    const narrow = defineToolsets({ default: { tools: ["fetch_url"], includes: [] } });
    const resolution = resolve(
      { global: { keys: {} } },
      EMPTY_INTENT,
      { toolsets: narrow },
      protoNamed,
    );
    for (const id of ["constructor", "toString", "valueOf"]) {
      expect(stateOf(resolution, id), id).toEqual({
        id,
        status: "disabled",
        by: { kind: "toolset", toolset: "default" },
      });
      expect(explain(resolution, protoNamed, id).chain).toEqual([]);
    }
  });
});

describe("explain", () => {
  it("gives the state and every mention deepest first, most specific key first", () => {
    const scopes: ScopeStack = {
      global: { keys: { mcp: false, all: true } },
      channel: { keys: { "mcp:github": true } },
      runtime: { keys: { fetch_url: false } },
    };
    const intent = setKey(setKey(EMPTY_INTENT, "mcp__github__create_issue", "off"), "all", "on");
    const resolution = resolve(scopes, intent);
    const explanation = explain(resolution, registry, "mcp__github__create_issue");
    expect(explanation.state).toEqual({
      id: "mcp__github__create_issue",
      status: "disabled",
      by: { kind: "scope", scope: "conversation", key: "mcp__github__create_issue" },
    });
    expect(explanation.chain).toEqual([
      { scope: "conversation", key: "mcp__github__create_issue", value: false },
      { scope: "conversation", key: "all", value: true },
      { scope: "channel", key: "mcp:github", value: true },
      { scope: "global", key: "mcp", value: false },
      { scope: "global", key: "all", value: true },
    ]);
    expect(explanation.summary).toBe(
      "mcp__github__create_issue: off, decided by conversation scope (mcp__github__create_issue)",
    );
  });

  it("summarizes each kind of state in words", () => {
    const resolution = resolve(
      { global: { keys: { all: false } }, channel: { keys: { current_time: true } } },
      pick(EMPTY_INTENT, ["fetch_url"]),
    );
    expect(explain(resolution, registry, "fetch_url").summary).toBe(
      "fetch_url: off, decided by global scope (all tools)",
    );
    expect(explain(resolution, registry, "current_time").summary).toBe(
      "current_time: on, decided by channel scope (current_time)",
    );
    expect(explain(resolution, registry, "describe_image").summary).toBe(
      'describe_image: unavailable: this host does not provide the "vision" capability',
    );
    const picked = resolve({}, pick(EMPTY_INTENT, ["fetch_url"]));
    expect(explain(picked, registry, "fetch_url").summary).toBe(
      "fetch_url: on, decided by the hand-picked tool list",
    );
    expect(explain(picked, registry, "current_time").summary).toBe(
      "current_time: off, not in the hand-picked tool list",
    );
    expect(explain(resolve(), registry, "current_time").summary).toBe(
      "current_time: on, decided by toolset default",
    );
  });

  it("says when no such tool exists", () => {
    expect(explain(resolve(), registry, "nope")).toEqual({
      id: "nope",
      state: { id: "nope", status: "unknown" },
      chain: [],
      summary: "nope: no such tool. `/tools` lists the tools this bot has.",
    });
  });

  it("ignores intent mounts when deciding state", () => {
    const resolution = resolve(
      { global: { keys: { fetch_url: false } } },
      mount(EMPTY_INTENT, ["fetch_url"]),
    );
    expect(statusOf(resolution, "fetch_url")).toBe("disabled");
  });
});
