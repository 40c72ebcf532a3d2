import { describe, expect, it } from "vitest";
import { tombstoneFor } from "../../src/core/agent/tombstone.ts";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, pick, setKey, setMode } from "../../src/core/availability/intent.ts";
import { TOOL_SEARCH_ID } from "../../src/core/loading/discovery-tool.ts";
import { defineToolsets } from "../../src/core/tools/toolsets.ts";
import { freeze, mcpTool, registryOf, tool } from "../support/tools.ts";

const registry = registryOf(
  tool("current_time"),
  tool("fetch_url"),
  tool("web_search", { capability: "search_provider" }),
  tool("run_python", { defer: true }),
  mcpTool("github", "create_issue"),
);
const capabilities: Capabilities = {
  search_provider: { available: false, reason: "no search API key is configured" },
};

describe("tombstoneFor", () => {
  it("gives no tombstone for a callable tool, tool_search included", () => {
    const contract = freeze(registry, { capabilities });
    expect(tombstoneFor(contract, "current_time")).toBeUndefined();
    expect(tombstoneFor(contract, TOOL_SEARCH_ID)).toBeUndefined();
  });

  it("names the deciding scope and /tools on for a tool switched off by its own id", () => {
    const contract = freeze(registry, {
      capabilities,
      scopes: { channel: { keys: { fetch_url: false } } },
    });
    expect(tombstoneFor(contract, "fetch_url")).toEqual({
      kind: "disabled",
      id: "fetch_url",
      scope: "channel",
      by: { kind: "scope", scope: "channel", key: "fetch_url" },
      text: 'Tool "fetch_url" is disabled by the channel scope. A person can re-enable it with /tools on fetch_url. Tell them, and do without it for now.',
    });
  });

  it("names the broader key that switched a tool off", () => {
    const contract = freeze(registry, {
      capabilities,
      scopes: { workspace: { keys: { "mcp:github": false } } },
    });
    expect(tombstoneFor(contract, "mcp__github__create_issue")?.text).toBe(
      'Tool "mcp__github__create_issue" is disabled by the workspace scope (mcp:github=off). A person can re-enable it with /tools on mcp__github__create_issue. Tell them, and do without it for now.',
    );
    const master = freeze(registry, { capabilities, intent: setKey(EMPTY_INTENT, "all", "off") });
    expect(tombstoneFor(master, "current_time")).toMatchObject({
      kind: "disabled",
      scope: "conversation",
      text: 'Tool "current_time" is disabled by the conversation scope (all=off). A person can re-enable it with /tools on current_time. Tell them, and do without it for now.',
    });
  });

  it("says only the operator can re-enable a tool the runtime scope switched off", () => {
    const contract = freeze(registry, {
      capabilities,
      scopes: { runtime: { keys: { mcp: false } } },
    });
    expect(tombstoneFor(contract, "mcp__github__create_issue")).toMatchObject({
      kind: "disabled",
      scope: "runtime",
      text: 'Tool "mcp__github__create_issue" is disabled by the runtime scope (mcp=off in --tools or SWITCHYARD_TOOLS). Only the bot\'s operator can re-enable it, by restarting without that setting.',
    });
  });

  it("says a tool is not in the toolset when the selection left it out", () => {
    const toolsets = defineToolsets({ default: { tools: ["current_time"], includes: [] } });
    const contract = freeze(registry, { capabilities, toolsets });
    expect(tombstoneFor(contract, "fetch_url")).toEqual({
      kind: "disabled",
      id: "fetch_url",
      scope: "selection",
      by: { kind: "toolset", toolset: "default" },
      text: 'Tool "fetch_url" is not in the default toolset. A person can re-enable it with /tools on fetch_url. Tell them, and do without it for now.',
    });
  });

  it("says a tool is not in the hand-picked list when a person picked others", () => {
    const contract = freeze(registry, {
      capabilities,
      intent: pick(EMPTY_INTENT, ["current_time"]),
    });
    expect(tombstoneFor(contract, "fetch_url")).toMatchObject({
      kind: "disabled",
      scope: "selection",
      text: 'Tool "fetch_url" is not in this conversation\'s hand-picked tool list. A person can re-enable it with /tools on fetch_url. Tell them, and do without it for now.',
    });
  });

  it("gives the capability's reason for an absent tool, even when a scope switched it on", () => {
    const contract = freeze(registry, {
      capabilities,
      scopes: { runtime: { keys: { web_search: true } } },
    });
    expect(tombstoneFor(contract, "web_search")).toEqual({
      kind: "absent",
      id: "web_search",
      capability: "search_provider",
      reason: "no search API key is configured",
      text: 'Tool "web_search" is unavailable: no search API key is configured. No command in the chat can turn it on; the bot\'s operator has to provide it. Tell the person, and do without it.',
    });
  });

  it("tells the model how to load a deferred tool with tool_search", () => {
    const contract = freeze(registry, { capabilities });
    expect(tombstoneFor(contract, "run_python")).toEqual({
      kind: "deferred",
      id: "run_python",
      mode: "default",
      text: 'Tool "run_python" is not loaded yet. Call tool_search with {"load":["run_python"]}, then call it again.',
    });
  });

  it("tells how to switch mode for a tool left out in minimal mode", () => {
    const contract = freeze(registry, {
      capabilities,
      intent: setMode(EMPTY_INTENT, "minimal"),
      essential: ["current_time"],
    });
    expect(tombstoneFor(contract, "fetch_url")).toEqual({
      kind: "deferred",
      id: "fetch_url",
      mode: "minimal",
      text: 'Tool "fetch_url" is not loaded in minimal mode, which has no tool discovery. A person can load it with /tools on fetch_url, or switch mode with /tools mode discover.',
    });
  });

  it("says there is no such tool, pointing at tool_search only when it exists", () => {
    const withDiscovery = freeze(registry, { capabilities });
    expect(tombstoneFor(withDiscovery, "make_coffee")).toEqual({
      kind: "unknown",
      id: "make_coffee",
      text: 'There is no tool named "make_coffee". Call tool_search to find a tool that does what you need.',
    });
    const without = freeze(registryOf(tool("current_time")), {});
    expect(tombstoneFor(without, "make_coffee")?.text).toBe(
      'There is no tool named "make_coffee". Call only the tools you were given.',
    );
  });
});
