import { describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import {
  applyChange,
  EMPTY_INTENT,
  type Intent,
  mount,
  pick,
  setKey,
  setMode,
} from "../../src/core/availability/intent.ts";
import {
  CHAT_SCOPES,
  type ChatScope,
  type ScopeStack,
} from "../../src/core/availability/scopes.ts";
import {
  type Actor,
  applyScopeChange,
  CommandError,
  type CommandPolicy,
  checkPermission,
  formatToolsCommand,
  helpView,
  listView,
  missingFamilies,
  type PlanContext,
  parseToolsCommand,
  planToolsCommand,
  planToolsText,
  renderText,
  type ToolsCommand,
  type ToolsPlan,
  USAGE,
} from "../../src/core/commands/index.ts";
import { freezeTurn, type TurnContract } from "../../src/core/loading/freeze.ts";
import { LOAD_MODES, UnknownModeError } from "../../src/core/loading/modes.ts";
import { defineToolsets } from "../../src/core/tools/toolsets.ts";
import { mcpTool, registryOf, tool } from "../support/tools.ts";

const VISION_MISSING: Capabilities = {
  vision: { available: false, reason: "the configured model has no vision support" },
};

const registry = registryOf(
  tool("web_search"),
  tool("code_run"),
  tool("current_time"),
  tool("image_describe", { capability: "vision" }),
  tool("jira_search", { defer: true }),
  mcpTool("github", "create_issue"),
  mcpTool("github", "list_issues"),
);

const toolsets = defineToolsets({
  research: { tools: ["web_search", "jira_search"], includes: [] },
});

function contractOf(scopes: ScopeStack = {}, intent: Intent = EMPTY_INTENT): TurnContract {
  return freezeTurn(registry, scopes, intent, VISION_MISSING, { toolsets, essential: [] });
}

const member: Actor = { id: "U_MEMBER", isPlatformAdmin: false };
const platformAdmin: Actor = { id: "U_PLATFORM", isPlatformAdmin: true };
const configAdmin: Actor = { id: "U_ADMIN", isPlatformAdmin: false };
const owner: Actor = { id: "U_OWNER", isPlatformAdmin: false };
const policy: CommandPolicy = {
  owners: ["U_OWNER"],
  admins: ["U_ADMIN"],
  conversation: "anyone",
};

function ctxOf(actor: Actor, contract: TurnContract = contractOf()): PlanContext {
  return { actor, policy, registry, toolsets, contract };
}

function parseError(text: string): CommandError {
  try {
    parseToolsCommand(text);
  } catch (error) {
    expect(error).toBeInstanceOf(CommandError);
    return error as CommandError;
  }
  throw new Error(`parseToolsCommand accepted ${JSON.stringify(text)}`);
}

function changeOf(plan: ToolsPlan) {
  if (plan.kind !== "change") throw new Error(`expected a change, got ${JSON.stringify(plan)}`);
  return plan;
}

function refusalOf(plan: ToolsPlan): string {
  if (plan.kind !== "refused") throw new Error(`expected a refusal, got ${JSON.stringify(plan)}`);
  return plan.reply;
}

function textOf(plan: ToolsPlan): string {
  if (plan.kind !== "reply") throw new Error(`expected a view, got ${JSON.stringify(plan)}`);
  return renderText(plan.view);
}

describe("parseToolsCommand", () => {
  it("reads empty input and list as the list, with or without the command prefix", () => {
    for (const text of [
      "",
      "   ",
      "list",
      "LIST",
      "/tools",
      "/tools list",
      "!tools",
      "!tools list",
    ]) {
      expect(parseToolsCommand(text), text).toEqual({ verb: "list" });
    }
    expect(parseToolsCommand("/tools@SwitchyardBot")).toEqual({ verb: "list" });
    expect(parseToolsCommand("/TOOLS@switchyard_bot off web_search")).toEqual({
      verb: "off",
      key: "web_search",
      scope: "conversation",
    });
  });

  it("reads on and off in every scope, verbs and scopes in any case", () => {
    for (const verb of ["on", "off"] as const) {
      expect(parseToolsCommand(`${verb} web_search`)).toEqual({
        verb,
        key: "web_search",
        scope: "conversation",
      });
      for (const scope of CHAT_SCOPES) {
        expect(
          parseToolsCommand(`${verb.toUpperCase()} web_search ${scope.toUpperCase()}`),
        ).toEqual({ verb, key: "web_search", scope });
      }
    }
  });

  it("keeps tool ids as written and reads all, mcp and mcp:<server> in any case", () => {
    expect(parseToolsCommand("off Translate")).toMatchObject({ key: "Translate" });
    expect(parseToolsCommand("off ALL")).toMatchObject({ key: "all" });
    expect(parseToolsCommand("off Mcp channel")).toMatchObject({ key: "mcp", scope: "channel" });
    expect(parseToolsCommand("off MCP:GitHub")).toMatchObject({ key: "mcp:GitHub" });
    expect(parseToolsCommand("on mcp__github__create_issue")).toMatchObject({
      key: "mcp__github__create_issue",
    });
  });

  it("strips code spans and quotes chat clients put around ids", () => {
    expect(parseToolsCommand("off `web_search` channel")).toMatchObject({
      key: "web_search",
      scope: "channel",
    });
    expect(parseToolsCommand('why "web_search"')).toEqual({ verb: "why", id: "web_search" });
  });

  it("reads reset of one key, and of everything at a scope in each spelling", () => {
    expect(parseToolsCommand("reset web_search")).toEqual({
      verb: "reset",
      key: "web_search",
      scope: "conversation",
    });
    expect(parseToolsCommand("reset mcp:github workspace")).toEqual({
      verb: "reset",
      key: "mcp:github",
      scope: "workspace",
    });
    const everything = (scope: ChatScope) => ({ verb: "reset", key: null, scope });
    expect(parseToolsCommand("reset")).toEqual(everything("conversation"));
    expect(parseToolsCommand("reset all")).toEqual(everything("conversation"));
    expect(parseToolsCommand("reset ALL channel")).toEqual(everything("channel"));
    expect(parseToolsCommand("reset channel")).toEqual(everything("channel"));
    expect(parseToolsCommand("Reset Global")).toEqual(everything("global"));
    // A tool named like a scope is still reachable by naming the scope after it.
    expect(parseToolsCommand("reset channel conversation")).toEqual({
      verb: "reset",
      key: "channel",
      scope: "conversation",
    });
  });

  it("reads why with one tool id", () => {
    expect(parseToolsCommand("WHY web_search")).toEqual({ verb: "why", id: "web_search" });
  });

  it("reads every mode, the seeds' aliases and follow, in any scope", () => {
    for (const mode of LOAD_MODES) {
      expect(parseToolsCommand(`mode ${mode}`)).toEqual({
        verb: "mode",
        mode,
        scope: "conversation",
      });
    }
    expect(parseToolsCommand("mode PI channel")).toEqual({
      verb: "mode",
      mode: "minimal",
      scope: "channel",
    });
    expect(parseToolsCommand("mode omp")).toMatchObject({ mode: "discover" });
    expect(parseToolsCommand("mode Follow workspace")).toEqual({
      verb: "mode",
      mode: null,
      scope: "workspace",
    });
  });

  it("reads preset with a toolset name or follow", () => {
    expect(parseToolsCommand("preset research channel")).toEqual({
      verb: "preset",
      toolset: "research",
      scope: "channel",
    });
    expect(parseToolsCommand("preset follow")).toEqual({
      verb: "preset",
      toolset: null,
      scope: "conversation",
    });
  });

  it("reads pick as comma- or space-separated ids, once each, and pick none as clearing", () => {
    expect(parseToolsCommand("pick web_search,code_run")).toEqual({
      verb: "pick",
      ids: ["web_search", "code_run"],
    });
    expect(parseToolsCommand("pick web_search, code_run web_search conversation")).toEqual({
      verb: "pick",
      ids: ["web_search", "code_run"],
    });
    expect(parseToolsCommand("pick NONE")).toEqual({ verb: "pick", ids: [] });
  });

  it("reads help, alone or for one command", () => {
    expect(parseToolsCommand("help")).toEqual({ verb: "help", topic: null });
    expect(parseToolsCommand("HELP Off")).toEqual({ verb: "help", topic: "off" });
  });

  it("refuses an unknown scope, naming it and showing the verb's usage", () => {
    const error = parseError("off web_search chanel");
    expect(error.token).toBe("chanel");
    expect(error.verb).toBe("off");
    expect(error.message).toBe(
      'Unknown scope "chanel". Use conversation, channel, workspace or global: /tools off <tool> [scope]',
    );
    expect(parseError("mode full chanel").message).toContain(USAGE.mode);
    expect(parseError("reset web_search everywhere").token).toBe("everywhere");
  });

  it("refuses the runtime scope, which only the startup flag sets", () => {
    expect(parseError("on web_search runtime").message).toContain("--tools or SWITCHYARD_TOOLS");
  });

  it("refuses an unknown mode with UnknownModeError's message", () => {
    const error = parseError("mode turbo");
    expect(error.token).toBe("turbo");
    expect(error.message).toContain(new UnknownModeError("turbo").message);
    expect(error.message).toContain(USAGE.mode);
  });

  it("refuses an unknown verb, suggesting the closest or the word people meant", () => {
    const typo = parseError("of web_search");
    expect(typo.token).toBe("of");
    expect(typo.message).toContain('Unknown command "of". Did you mean "off"?');
    expect(parseError("enable web_search").message).toContain('Did you mean "on"?');
    expect(parseError("web_search off").message).toContain("put off first: /tools off web_search");
  });

  it("refuses missing arguments and extra words, naming what is wrong", () => {
    expect(parseError("off").message).toBe(
      "Missing the tool to switch off: /tools off <tool> [scope]",
    );
    expect(parseError("why").message).toContain(USAGE.why);
    expect(parseError("mode").message).toContain(USAGE.mode);
    expect(parseError("preset").message).toContain(USAGE.preset);
    expect(parseError("pick").message).toContain(USAGE.pick);
    const extra = parseError("off web_search channel now");
    expect(extra.token).toBe("now");
    expect(extra.message).toBe('Unexpected "now": /tools off <tool> [scope]');
    expect(parseError("list everything").token).toBe("everything");
    expect(parseError("why web_search code_run").token).toBe("code_run");
  });

  it("refuses malformed keys, ids and toolset names", () => {
    expect(parseError("off web_search,code_run").token).toBe("web_search,code_run");
    expect(parseError("off mcp:").token).toBe("mcp:");
    expect(parseError("why mcp:github").token).toBe("mcp:github");
    expect(parseError("pick web_search,bad/id").token).toBe("bad/id");
    expect(parseError("preset _hidden").token).toBe("_hidden");
    expect(parseError("help frobnicate").token).toBe("frobnicate");
  });

  it("refuses picking in a shared scope and none mixed with tools", () => {
    expect(parseError("pick web_search channel").message).toContain(
      "/tools preset <toolset> channel",
    );
    expect(parseError("pick none,web_search").token).toBe("none");
  });
});

describe("formatToolsCommand", () => {
  it("writes the canonical command, leaving out the default scope", () => {
    const cases: [ToolsCommand, string][] = [
      [{ verb: "off", key: "web_search", scope: "conversation" }, "/tools off web_search"],
      [{ verb: "on", key: "mcp:github", scope: "channel" }, "/tools on mcp:github channel"],
      [{ verb: "reset", key: null, scope: "workspace" }, "/tools reset all workspace"],
      [
        { verb: "reset", key: "channel", scope: "conversation" },
        "/tools reset channel conversation",
      ],
      [{ verb: "mode", mode: null, scope: "global" }, "/tools mode follow global"],
      [{ verb: "pick", ids: [] }, "/tools pick none"],
      [{ verb: "pick", ids: ["a", "b"] }, "/tools pick a,b"],
    ];
    for (const [command, text] of cases) {
      expect(formatToolsCommand(command)).toBe(text);
      expect(parseToolsCommand(text)).toEqual(command);
    }
  });
});

describe("checkPermission", () => {
  const roles: [string, Actor, Record<ChatScope, boolean>][] = [
    ["a member", member, { conversation: true, channel: false, workspace: false, global: false }],
    [
      "a platform admin",
      platformAdmin,
      { conversation: true, channel: true, workspace: true, global: false },
    ],
    [
      "a configured admin",
      configAdmin,
      { conversation: true, channel: true, workspace: true, global: false },
    ],
    ["an owner", owner, { conversation: true, channel: true, workspace: true, global: true }],
  ];

  for (const [name, actor, allowed] of roles) {
    it(`lets ${name} change exactly the scopes their role allows`, () => {
      for (const scope of CHAT_SCOPES) {
        expect(checkPermission(actor, scope, policy).allowed, scope).toBe(allowed[scope]);
      }
    });
  }

  it("refuses a member the channel scope, saying who may and what they can do instead", () => {
    const command = parseToolsCommand("off web_search channel");
    expect(checkPermission(member, "channel", policy, command)).toEqual({
      allowed: false,
      reason:
        "Only workspace admins or the bot's configured admins can change the channel scope. Ask one of them, or use the conversation scope: /tools off web_search",
    });
    const workspace = checkPermission(member, "workspace", policy);
    expect(workspace).toMatchObject({ allowed: false });
    expect(!workspace.allowed && workspace.reason).toContain(
      "Only workspace admins or the bot's configured admins can change the workspace scope",
    );
  });

  it("refuses an admin the global scope, naming the owners and offering the workspace scope", () => {
    const command = parseToolsCommand("off web_search global");
    const result = checkPermission(configAdmin, "global", policy, command);
    expect(result).toEqual({
      allowed: false,
      reason:
        "Only the bot's owners (listed in the config file) can change the global scope. Ask one of them, or use the workspace scope: /tools off web_search workspace",
    });
  });

  it("says the config file is the only way when no owners are configured", () => {
    const result = checkPermission(platformAdmin, "global", { ...policy, owners: [] });
    expect(!result.allowed && result.reason).toContain(
      "No owners are configured, so the global scope can only be changed in the config file.",
    );
  });

  it("can keep the conversation scope to admins", () => {
    const adminsOnly: CommandPolicy = { ...policy, conversation: "admins" };
    expect(checkPermission(member, "conversation", adminsOnly)).toEqual({
      allowed: false,
      reason:
        "Only workspace admins or the bot's configured admins can change the conversation scope. Ask one of them.",
    });
    expect(checkPermission(platformAdmin, "conversation", adminsOnly).allowed).toBe(true);
    expect(checkPermission(configAdmin, "conversation", adminsOnly).allowed).toBe(true);
    expect(checkPermission(owner, "conversation", adminsOnly).allowed).toBe(true);
  });
});

describe("planToolsCommand", () => {
  const plan = (text: string, actor: Actor = member, contract?: TurnContract) =>
    planToolsText(text, ctxOf(actor, contract));

  it("plans a conversation switch as an IntentChange and confirms it from the next message", () => {
    expect(plan("off web_search")).toEqual({
      kind: "change",
      scope: "conversation",
      change: { kind: "set", key: "web_search", value: "off" },
      reply:
        "web_search is now off in this conversation. This applies from the next message; the current answer is unaffected.",
    });
  });

  it("plans a shared-scope switch as a ScopeChange", () => {
    expect(plan("off web_search channel", platformAdmin)).toEqual({
      kind: "change",
      scope: "channel",
      change: { kind: "set", key: "web_search", value: "off" },
      reply:
        "web_search is now off in this channel. This applies from the next message; the current answer is unaffected.",
    });
    expect(changeOf(plan("on mcp workspace", configAdmin))).toMatchObject({
      scope: "workspace",
      change: { kind: "set", key: "mcp", value: "on" },
      reply: expect.stringMatching(/^All MCP tools are now on in this workspace\./),
    });
    expect(changeOf(plan("off all global", owner)).reply).toMatch(
      /^All tools are now off globally\./,
    );
  });

  it("refuses a change the actor may not make, through the permission check", () => {
    expect(refusalOf(plan("off web_search channel"))).toContain(
      "use the conversation scope: /tools off web_search",
    );
    expect(refusalOf(plan("mode full global", platformAdmin))).toContain("owners");
  });

  it("lets anyone read (list, why, help) even when changes are kept to admins", () => {
    const ctx = { ...ctxOf(member), policy: { ...policy, conversation: "admins" as const } };
    for (const text of ["", "why web_search", "help"]) {
      expect(planToolsText(text, ctx).kind, text).toBe("reply");
    }
    expect(planToolsText("off web_search", ctx).kind).toBe("refused");
  });

  it("says when a deeper scope still overrides the change", () => {
    const contract = contractOf({}, setKey(EMPTY_INTENT, "web_search", "off"));
    const reply = changeOf(plan("on web_search channel", platformAdmin, contract)).reply;
    expect(reply).toBe(
      "web_search is now on in this channel. But this conversation has it off (web_search=off), which wins here, so it stays off. /tools reset web_search lets the channel scope decide. This applies from the next message; the current answer is unaffected.",
    );
    const runtime = contractOf({ runtime: { keys: { code_run: true } } });
    expect(changeOf(plan("off code_run", member, runtime)).reply).toContain(
      "But the bot's startup setting (--tools or SWITCHYARD_TOOLS) has it on (code_run=on)",
    );
  });

  it("names the tools an aggregate change does not reach, deeper or more specific", () => {
    const contract = contractOf({ channel: { keys: { "mcp:github": true } } });
    const reply = changeOf(plan("off mcp channel", platformAdmin, contract)).reply;
    expect(reply).toContain("But 2 of the 2 tools it covers are still decided");
    expect(reply).toContain("mcp__github__create_issue (channel: mcp:github=on)");
  });

  it("says nothing extra when no deeper scope disagrees", () => {
    const contract = contractOf({}, setKey(EMPTY_INTENT, "web_search", "on"));
    expect(changeOf(plan("on web_search channel", platformAdmin, contract)).reply).not.toContain(
      "But",
    );
  });

  it("stores an on for an absent capability but says no scope can revive it", () => {
    const planned = changeOf(plan("on image_describe"));
    expect(planned.change).toEqual({ kind: "set", key: "image_describe", value: "on" });
    expect(planned.reply).toContain(
      "But image_describe is unavailable: the configured model has no vision support.",
    );
  });

  it("refuses an unknown tool id with the closest ids", () => {
    expect(refusalOf(plan("off web_serch"))).toBe(
      'There is no tool "web_serch". Did you mean web_search? /tools lists the tools this bot has.',
    );
    expect(refusalOf(plan("on jira"))).toContain("Did you mean jira_search?");
    expect(refusalOf(plan("off Code_Run"))).toContain("Did you mean code_run?");
    expect(refusalOf(plan("off zzzzzz"))).not.toContain("Did you mean");
    expect(refusalOf(plan("off channel"))).toContain("/tools off all channel");
    expect(refusalOf(plan("off plugin:nope"))).toContain('There is no tool family "plugin:nope"');
    expect(refusalOf(plan("off tool_search"))).toContain("tool_search has no switch of its own");
  });

  it("accepts mcp:<server> and mcp__ keys even when no such tool is registered now", () => {
    expect(changeOf(plan("off mcp:jira")).change).toEqual({
      kind: "set",
      key: "mcp:jira",
      value: "off",
    });
    expect(changeOf(plan("off mcp__jira__search")).change).toMatchObject({
      key: "mcp__jira__search",
    });
  });

  it("plans reset of one key or of everything, at any scope", () => {
    expect(changeOf(plan("reset web_search"))).toMatchObject({
      scope: "conversation",
      change: { kind: "reset", key: "web_search" },
    });
    const all = changeOf(plan("reset"));
    expect(all.change).toEqual({ kind: "reset" });
    expect(all.reply).toContain("Tools loaded by tool_search stay loaded.");
    expect(changeOf(plan("reset channel", platformAdmin))).toMatchObject({
      scope: "channel",
      change: { kind: "reset" },
      reply: expect.stringContaining("Every tool setting in this channel is reset"),
    });
    expect(refusalOf(plan("reset web_serch"))).toContain("Did you mean web_search?");
  });

  it("lets reset clean up a key that names a tool no longer registered", () => {
    const contract = contractOf({ channel: { keys: { old_tool: false } } });
    expect(changeOf(plan("reset old_tool channel", platformAdmin, contract)).change).toEqual({
      kind: "reset",
      key: "old_tool",
    });
  });

  it("plans mode changes and says when a deeper mode wins", () => {
    expect(changeOf(plan("mode minimal"))).toMatchObject({
      scope: "conversation",
      change: { kind: "mode", mode: "minimal" },
    });
    expect(changeOf(plan("mode follow channel", platformAdmin)).change).toEqual({
      kind: "mode",
      mode: null,
    });
    const contract = contractOf({}, setMode(EMPTY_INTENT, "discover"));
    expect(changeOf(plan("mode full channel", platformAdmin, contract)).reply).toContain(
      "But this conversation uses mode discover, which wins here.",
    );
  });

  it("plans presets, refusing unknown toolsets with the known ones", () => {
    expect(changeOf(plan("preset research channel", platformAdmin))).toMatchObject({
      scope: "channel",
      change: { kind: "toolset", name: "research" },
      reply: expect.stringMatching(/^The toolset is now research in this channel\./),
    });
    expect(changeOf(plan("preset follow")).change).toEqual({ kind: "toolset", name: null });
    expect(refusalOf(plan("preset reserch"))).toBe(
      'There is no toolset "reserch". Did you mean research? Known toolsets: default, full, research.',
    );
    const picked = contractOf({}, pick(EMPTY_INTENT, ["web_search"]));
    expect(changeOf(plan("preset research channel", platformAdmin, picked)).reply).toContain(
      "this conversation has a hand-picked tool list, which wins here",
    );
    expect(changeOf(plan("preset research", member, picked)).reply).toContain(
      "It replaces the hand-picked list.",
    );
  });

  it("plans picks in the conversation and refuses unknown ids", () => {
    expect(changeOf(plan("pick web_search,code_run"))).toMatchObject({
      scope: "conversation",
      change: { kind: "pick", ids: ["web_search", "code_run"] },
      reply: expect.stringContaining("exactly these tools: web_search, code_run"),
    });
    expect(changeOf(plan("pick none")).change).toEqual({ kind: "pick", ids: [] });
    expect(refusalOf(plan("pick web_search,web_serch"))).toContain("Did you mean web_search?");
    expect(refusalOf(plan("pick nope1,web_serch"))).toBe(
      'There are no tools "nope1" or "web_serch" (did you mean web_search?). /tools lists the tools this bot has.',
    );
  });

  it("turns a command that cannot be read into a refusal with the parser's message", () => {
    expect(refusalOf(plan("off web_search chanel"))).toBe(
      parseError("off web_search chanel").message,
    );
  });

  it("plans changes that do what the reply says once applied", () => {
    const channel = changeOf(plan("off web_search channel", platformAdmin));
    if (channel.scope === "conversation") throw new Error("expected the channel scope");
    const layer = applyScopeChange({}, channel.change);
    const after = contractOf({ channel: layer });
    expect(after.resolution.states.get("web_search")).toMatchObject({
      status: "disabled",
      by: { kind: "scope", scope: "channel", key: "web_search" },
    });

    const conversation = changeOf(plan("pick web_search"));
    if (conversation.scope !== "conversation") throw new Error("expected the conversation");
    const intent = applyChange(EMPTY_INTENT, conversation.change);
    expect(contractOf({}, intent).resident).toEqual(["web_search"]);
  });
});

describe("the list view", () => {
  it("counts available tools of all registered ones, without tool_search", () => {
    const contract = contractOf();
    expect(contract.resident).toContain("tool_search");
    const view = listView(contract);
    // image_describe is absent; everything else is on (jira and the MCP tools deferred).
    expect(view.title).toBe("6 of 7 tools available");
    expect(renderText(view).split("\n")[0]).toBe("6 of 7 tools available");
    expect(view.items.map((i) => i.id)).not.toContain("tool_search");
  });

  it("shows each tool's state with its deciding scope or capability reason", () => {
    const contract = contractOf(
      { channel: { keys: { code_run: false } }, workspace: { keys: { mcp: false } } },
      mount(EMPTY_INTENT, ["jira_search"]),
    );
    const view = listView(contract);
    expect(view.mode).toBe("default");
    expect(view.items).toEqual([
      { id: "current_time", state: "resident", detail: "" },
      { id: "jira_search", state: "resident", detail: "loaded by tool_search" },
      { id: "web_search", state: "resident", detail: "" },
      { id: "code_run", state: "disabled", detail: "channel scope" },
      { id: "mcp__github__create_issue", state: "disabled", detail: "workspace scope (mcp)" },
      { id: "mcp__github__list_issues", state: "disabled", detail: "workspace scope (mcp)" },
      {
        id: "image_describe",
        state: "unavailable",
        detail: "the configured model has no vision support",
      },
    ]);
  });

  it("renders plain text: the title, then one aligned line per tool", () => {
    const small = registryOf(
      tool("web_search"),
      tool("code_run"),
      tool("image_describe", { capability: "vision" }),
      tool("jira_search", { defer: true }),
    );
    const contract = freezeTurn(
      small,
      { channel: { keys: { code_run: false } } },
      EMPTY_INTENT,
      VISION_MISSING,
      { essential: [] },
    );
    expect(renderText(listView(contract)).split("\n")).toEqual([
      "2 of 4 tools available",
      "  web_search      resident",
      "  jira_search     deferred (load with tool_search)",
      "  code_run        disabled by channel scope",
      "  image_describe  unavailable: the configured model has no vision support",
      "",
      "Mode default. Deferred tools load with tool_search when the bot needs them. /tools why <tool> explains a state; /tools help lists the commands.",
    ]);
  });

  it("names an MCP server that never connected, which has no tools to list, before the footer", () => {
    const capabilities: Capabilities = {
      ...VISION_MISSING,
      "mcp:github": { available: true },
      "mcp:jira": {
        available: false,
        reason:
          "MCP server jira is not connected: spawn jira-mcp ENOENT (retrying, attempt 2 next)",
      },
      "mcp:wiki": { available: true },
    };
    // github has tools (listed as such), wiki is up with none, jira never connected.
    expect(missingFamilies(capabilities, registry)).toEqual([
      "MCP server jira is not connected: spawn jira-mcp ENOENT (retrying, attempt 2 next).",
    ]);
    const view = listView(contractOf(), missingFamilies(capabilities, registry));
    expect(view.footer).toMatch(/^MCP server jira is not connected: .*\. Mode default\./);
    expect(renderText(view)).toContain("MCP server jira is not connected");
    expect(listView(contractOf()).footer).toMatch(/^Mode default\./);
  });

  it("says a deferred tool cannot be loaded in a mode without discovery", () => {
    const contract = contractOf({}, setMode(EMPTY_INTENT, "minimal"));
    const web = listView(contract).items.find((i) => i.id === "web_search");
    expect(web).toEqual({
      id: "web_search",
      state: "deferred",
      detail: "not loadable in minimal mode",
    });
  });

  it("names the toolset or hand-picked list when no scope decided", () => {
    const items = listView(contractOf({}, pick(EMPTY_INTENT, ["web_search"]))).items;
    expect(items.find((i) => i.id === "code_run")).toEqual({
      id: "code_run",
      state: "disabled",
      detail: "the hand-picked list",
    });
  });
});

describe("the why view", () => {
  const why = (text: string, contract: TurnContract) =>
    textOf(planToolsText(text, ctxOf(member, contract)));

  it("renders the summary and every scope, marking the one that decides", () => {
    const contract = contractOf(
      { channel: { keys: { web_search: true } } },
      setKey(EMPTY_INTENT, "web_search", "off"),
    );
    expect(why("why web_search", contract).split("\n")).toEqual([
      "web_search: off, decided by conversation scope (web_search)",
      "  runtime: —",
      "  conversation: web_search=off  <- decides",
      "  channel: web_search=on",
      "  workspace: —",
      "  global: —",
    ]);
  });

  it("names a family key that decides, and how the tool loads", () => {
    const contract = contractOf({ channel: { keys: { mcp: true, "mcp:github": false } } });
    const text = why("why mcp__github__list_issues", contract);
    expect(text).toContain("  channel: mcp:github=off, mcp=on  <- decides");
    const on = why("why jira_search", contractOf());
    expect(on).toContain("  toolset default: includes jira_search  <- decides");
    expect(on).toContain("  mode default: deferred (load with tool_search)");
  });

  it("puts the capability floor first when it decides", () => {
    const text = why(
      "why image_describe",
      contractOf({ global: { keys: { image_describe: true } } }),
    );
    expect(text.split("\n").slice(0, 2)).toEqual([
      "image_describe: unavailable: the configured model has no vision support",
      "  capability: vision missing: the configured model has no vision support  <- decides",
    ]);
    expect(text.split("\n")).toContain("  global: image_describe=on");
  });

  it("explains tool_search and refuses unknown ids with the closest ones", () => {
    expect(why("why tool_search", contractOf())).toContain("the discovery tool");
    expect(refusalOf(planToolsText("why web_serch", ctxOf(member)))).toContain(
      "Did you mean web_search?",
    );
  });

  it("uses the explanation function the shell hands in", () => {
    const ctx: PlanContext = {
      ...ctxOf(member),
      explain: (id) => ({
        id,
        state: { id, status: "unknown" },
        chain: [],
        summary: `${id}: custom`,
      }),
    };
    expect(textOf(planToolsCommand({ verb: "why", id: "web_search" }, ctx))).toBe(
      "web_search: custom",
    );
  });
});

describe("the help view", () => {
  it("lists every command's usage, or one command's", () => {
    const all = renderText(helpView());
    for (const usage of Object.values(USAGE)) expect(all).toContain(usage);
    expect(helpView("off").entries).toEqual([
      { verb: "off", usage: USAGE.off, summary: expect.any(String) },
    ]);
  });
});

describe("applyScopeChange", () => {
  it("sets and resets keys, toolsets and modes, keeping the rest", () => {
    const layer = applyScopeChange(
      { toolset: "research" },
      { kind: "set", key: "b", value: "off" },
    );
    expect(applyScopeChange(layer, { kind: "set", key: "a", value: "on" })).toEqual({
      toolset: "research",
      keys: { a: true, b: false },
    });
    expect(applyScopeChange(layer, { kind: "reset", key: "b" })).toEqual({ toolset: "research" });
    expect(applyScopeChange(layer, { kind: "reset" })).toEqual({});
    expect(applyScopeChange(layer, { kind: "toolset", name: null })).toEqual({
      keys: { b: false },
    });
    expect(applyScopeChange(layer, { kind: "mode", mode: "full" })).toMatchObject({ mode: "full" });
    expect(applyScopeChange({ mode: "full" }, { kind: "mode", mode: null })).toEqual({});
  });

  it("keeps a key named __proto__ as a key", () => {
    const layer = applyScopeChange({}, { kind: "set", key: "__proto__", value: "off" });
    expect(Object.hasOwn(layer.keys ?? {}, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(layer.keys)).toBe(Object.prototype);
  });
});
