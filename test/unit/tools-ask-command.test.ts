import { describe, expect, it } from "vitest";
import { z } from "zod";
import { renderReport } from "../../src/cli/tools.ts";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import {
  applyChange,
  EMPTY_INTENT,
  type Intent,
  setKey,
} from "../../src/core/availability/intent.ts";
import type { ScopeStack } from "../../src/core/availability/scopes.ts";
import {
  type Actor,
  applyScopeChange,
  CommandError,
  type CommandPolicy,
  formatToolsCommand,
  helpView,
  listView,
  type PlanContext,
  parseToolsCommand,
  planToolsText,
  renderText,
  type ToolsPlan,
  toolsPanel,
} from "../../src/core/commands/index.ts";
import { freezeTurn, type TurnContract } from "../../src/core/loading/freeze.ts";
import { reportContract } from "../../src/core/loading/report.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { defineToolsets } from "../../src/core/tools/toolsets.ts";
import { commandDefinitions } from "../../src/platforms/discord/commands.ts";
import { mcpTool, registryOf, tool } from "../support/tools.ts";

const sendMessage = defineTool({
  id: "send_message",
  description: "Posts into another channel.",
  parameters: z.object({ to: z.string(), text: z.string() }),
  approval: "ask",
  execute: () => "sent",
});

const registry = registryOf(
  tool("web_search"),
  tool("fetch_url"),
  tool("image_describe", { capability: "vision" }),
  sendMessage,
  mcpTool("github", "create_issue"),
);
const capabilities: Capabilities = {
  vision: { available: false, reason: "the configured model has no vision support" },
};
const toolsets = defineToolsets({});

function contractOf(scopes: ScopeStack = {}, intent: Intent = EMPTY_INTENT): TurnContract {
  return freezeTurn(registry, scopes, intent, capabilities, { toolsets, essential: [] });
}

const member: Actor = { id: "U_MEMBER", isPlatformAdmin: false };
const admin: Actor = { id: "U_ADMIN", isPlatformAdmin: false };
const owner: Actor = { id: "U_OWNER", isPlatformAdmin: false };
const policy: CommandPolicy = { owners: ["U_OWNER"], admins: ["U_ADMIN"], conversation: "anyone" };

function plan(text: string, actor: Actor = member, contract = contractOf()): ToolsPlan {
  const ctx: PlanContext = { actor, policy, registry, toolsets, contract };
  return planToolsText(text, ctx);
}

function replyOf(p: ToolsPlan): string {
  if (p.kind === "reply") return renderText(p.view);
  return p.reply;
}

describe("/tools ask: reading and writing the command", () => {
  it("reads ask <tool> [scope] like on and off, in any case", () => {
    expect(parseToolsCommand("/tools ask send_message")).toEqual({
      verb: "ask",
      key: "send_message",
      scope: "conversation",
    });
    expect(parseToolsCommand("ASK mcp:github Channel")).toEqual({
      verb: "ask",
      key: "mcp:github",
      scope: "channel",
    });
    expect(formatToolsCommand({ verb: "ask", key: "mcp", scope: "workspace" })).toBe(
      "/tools ask mcp workspace",
    );
    expect(
      parseToolsCommand(formatToolsCommand({ verb: "ask", key: "all", scope: "global" })),
    ).toEqual({ verb: "ask", key: "all", scope: "global" });
  });

  it("refuses a missing tool and a wrong word order with the fix", () => {
    expect(() => parseToolsCommand("ask")).toThrow(CommandError);
    expect(() => parseToolsCommand("ask")).toThrow(/\/tools ask <tool> \[scope\]/);
    expect(() => parseToolsCommand("send_message ask")).toThrow(
      "put ask first: /tools ask send_message",
    );
    expect(() => parseToolsCommand("ask")).toThrow("Missing the tool to ask about first");
    expect(() => parseToolsCommand("approve send_message")).toThrow('Did you mean "ask"?');
  });
});

describe("/tools ask: who may", () => {
  it("lets anyone set ask for their conversation, and confirms what it does", () => {
    const p = plan("ask fetch_url");
    expect(p).toEqual({
      kind: "change",
      scope: "conversation",
      change: { kind: "set", key: "fetch_url", value: "ask" },
      reply:
        "fetch_url is now set to ask in this conversation: offered as before, but each call waits for a person's approval. This applies from the next message; the current answer is unaffected.",
    });
  });

  it("refuses a member the channel and an admin the global scope, offering the narrower command", () => {
    expect(plan("ask fetch_url channel")).toEqual({
      kind: "refused",
      reply:
        "Only workspace admins or the bot's configured admins can change the channel scope. Ask one of them, or use the conversation scope: /tools ask fetch_url",
    });
    expect(plan("ask mcp global", admin)).toEqual({
      kind: "refused",
      reply:
        "Only the bot's owners (listed in the config file) can change the global scope. Ask one of them, or use the workspace scope: /tools ask mcp workspace",
    });
    expect(plan("ask mcp global", owner)).toMatchObject({
      kind: "change",
      scope: "global",
      change: { kind: "set", key: "mcp", value: "ask" },
    });
  });

  it("refuses an unknown tool as on and off do", () => {
    expect(replyOf(plan("ask fetch_ur"))).toBe(
      'There is no tool "fetch_ur". Did you mean fetch_url? /tools lists the tools this bot has.',
    );
  });

  it("says the floor still holds for an absent tool", () => {
    expect(replyOf(plan("ask image_describe"))).toContain(
      "But image_describe is unavailable: the configured model has no vision support. No scope can turn it on until that changes.",
    );
  });

  it("says when a deeper scope still decides", () => {
    const contract = contractOf({}, setKey(EMPTY_INTENT, "fetch_url", "on"));
    expect(replyOf(plan("ask fetch_url channel", admin, contract))).toContain(
      "But this conversation has it on (fetch_url=on), which wins here, so it stays on. /tools reset fetch_url lets the channel scope decide.",
    );
    const asking = contractOf({}, setKey(EMPTY_INTENT, "fetch_url", "ask"));
    expect(replyOf(plan("on fetch_url channel", admin, asking))).toContain(
      "But this conversation has it set to ask (fetch_url=ask), which wins here, so it stays set to ask.",
    );
  });

  it("says what an on does to a tool that asks by its own default", () => {
    expect(replyOf(plan("on send_message"))).toContain(
      "This lifts the ask-first default of send_message: its calls run without approval.",
    );
    expect(replyOf(plan("on all channel", admin))).toContain(
      "send_message still asks first by its own default; /tools on <tool> lifts that.",
    );
    // A deeper all=on decides it instead: the channel's on does not lift the default, and says so.
    const allOn = contractOf({}, setKey(EMPTY_INTENT, "all", "on"));
    const reply = replyOf(plan("on send_message channel", admin, allOn));
    expect(reply).not.toContain("lifts");
    expect(reply).toContain(
      "But send_message still asks first: a deeper all or mcp decides it, and that keeps a tool's own ask-first default.",
    );
  });

  it("applies to the intent and to a shared layer as ask", () => {
    const p = plan("ask fetch_url");
    if (p.kind !== "change" || p.scope !== "conversation") throw new Error("expected a change");
    expect(applyChange(EMPTY_INTENT, p.change).decisions).toEqual({ fetch_url: "ask" });
    const shared = plan("ask mcp:github channel", admin);
    if (shared.kind !== "change" || shared.scope === "conversation") throw new Error("expected");
    expect(applyScopeChange({}, shared.change)).toEqual({ keys: { "mcp:github": "ask" } });
  });
});

describe("what people see", () => {
  const contract = contractOf({ channel: { keys: { fetch_url: "ask" } } });

  it("the list marks each tool that asks first, with who decided it", () => {
    expect(renderText(listView(contract))).toBe(
      [
        "4 of 5 tools available",
        "  fetch_url                  resident, asks first (channel scope)",
        "  send_message               resident, asks first (the tool's own default)",
        "  web_search                 resident",
        "  mcp__github__create_issue  deferred (load with tool_search)",
        "  image_describe             unavailable: the configured model has no vision support",
        "",
        "Mode default. Deferred tools load with tool_search when the bot needs them. /tools why <tool> explains a state; /tools help lists the commands.",
      ].join("\n"),
    );
  });

  it("the panel keeps ask tools on, and says they ask", () => {
    const entries = toolsPanel(listView(contract)).entries;
    expect(entries.find((e) => e.id === "fetch_url")).toMatchObject({
      on: true,
      asks: true,
      switchState: "on, asks first (channel scope)",
    });
    expect(entries.find((e) => e.id === "web_search")).toMatchObject({ on: true, asks: false });
  });

  it("why names the scope that decided ask, or the tool's own default", () => {
    expect(replyOf(plan("why fetch_url", member, contract))).toBe(
      [
        "fetch_url: ask (on, each call waits for a person's approval), decided by channel scope (fetch_url)",
        "  runtime: —",
        "  conversation: —",
        "  channel: fetch_url=ask  <- decides",
        "  workspace: —",
        "  global: —",
        "  mode default: resident",
      ].join("\n"),
    );
    expect(replyOf(plan("why send_message", member, contract))).toBe(
      [
        "send_message: on, decided by toolset default; asks first: the tool's own default (approval: ask), which /tools on send_message lifts",
        "  runtime: —",
        "  conversation: —",
        "  channel: —",
        "  workspace: —",
        "  global: —",
        "  toolset default: includes send_message  <- decides",
        "  tool default: approval: ask (each call waits for a person's approval)  <- decides",
        "  mode default: resident",
      ].join("\n"),
    );
  });

  it("Discord's /tools command has an ask subcommand with a tool and a scope", () => {
    const tools = commandDefinitions().find((c) => c.name === "tools");
    const ask = tools?.options?.find((o) => o.name === "ask") as
      | { options?: { name: string; required?: boolean }[] }
      | undefined;
    expect(ask?.options?.map((o) => [o.name, o.required === true])).toEqual([
      ["tool", true],
      ["scope", false],
    ]);
  });

  it("help lists ask", () => {
    const help = renderText(helpView());
    expect(help).toContain("/tools ask <tool> [scope]");
    expect(help).toContain("each takes on, off or ask");
  });

  it("switchyard tools lists the tools that ask first", () => {
    const report = reportContract(contract, registry);
    expect(report.asking).toEqual([
      {
        id: "fetch_url",
        by: "channel",
        reason: "asks first, decided by channel scope (fetch_url)",
      },
      {
        id: "send_message",
        by: "tool",
        reason: "asks first, decided by the tool's own default",
      },
    ]);
    expect(renderReport(report)).toContain(
      [
        "Asks first (2; on as above, each call waits for a person's approval)",
        "  fetch_url       asks first, decided by channel scope (fetch_url)",
        "  send_message    asks first, decided by the tool's own default",
      ].join("\n"),
    );
  });
});
