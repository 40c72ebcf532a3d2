import type { types } from "@slack/bolt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Tombstone, tombstoneFor } from "../../src/core/agent/tombstone.ts";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, setKey } from "../../src/core/availability/intent.ts";
import { CommandError, parseToolsCommand } from "../../src/core/commands/index.ts";
import type { SkillItem, SkillListView } from "../../src/core/commands/skills-view.ts";
import { type ListView, listView, type ToolItem } from "../../src/core/commands/view.ts";
import {
  parseSkillsAction,
  parseToolsAction,
  SlackActionError,
} from "../../src/platforms/slack/block-actions.ts";
import {
  type BlockMessage,
  SKILLS_ACTION,
  SKILLS_UI_SCOPES,
  skillsBlocks,
  TOOLS_ACTION,
  TOOLS_UI_SCOPES,
  toolsBlocks,
} from "../../src/platforms/slack/blocks.ts";
import { errorBlocks, tombstoneBlocks } from "../../src/platforms/slack/notice-blocks.ts";
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

type Control = { actionId: string; value: string; block: types.KnownBlock };

/** Every interactive element of a message, with the value a click would send. */
function controls(message: BlockMessage): Control[] {
  const found: Control[] = [];
  for (const block of message.blocks) {
    const elements =
      block.type === "actions"
        ? block.elements
        : block.type === "section" && block.accessory
          ? [block.accessory]
          : [];
    for (const element of elements) {
      if (element.type === "button") {
        found.push({ actionId: element.action_id ?? "", value: element.value ?? "", block });
      } else if (element.type === "static_select") {
        for (const option of element.options ?? []) {
          found.push({ actionId: element.action_id ?? "", value: option.value ?? "", block });
        }
      }
    }
  }
  return found;
}

/** Block Kit's limits, as Slack enforces them on chat.postMessage and chat.update. */
function expectWithinLimits(message: BlockMessage): void {
  const { blocks } = message;
  expect(blocks.length).toBeLessThanOrEqual(50);
  const actionIds: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "header":
        expect(block.text.text.length).toBeLessThanOrEqual(150);
        break;
      case "section":
        expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
        if (block.accessory && "action_id" in block.accessory) {
          actionIds.push(block.accessory.action_id ?? "");
        }
        if (block.accessory?.type === "button") {
          expect(block.accessory.text.text.length).toBeLessThanOrEqual(75);
          expect((block.accessory.value ?? "").length).toBeLessThanOrEqual(2000);
        }
        if (block.accessory?.type === "static_select") {
          const options = block.accessory.options ?? [];
          expect(options.length).toBeLessThanOrEqual(100);
          for (const o of options) expect(o.value?.length ?? 0).toBeLessThanOrEqual(150);
          expect(options).toContainEqual(block.accessory.initial_option);
        }
        break;
      case "context":
        expect(block.elements.length).toBeLessThanOrEqual(10);
        for (const e of block.elements) {
          if ("text" in e) expect(e.text.length).toBeLessThanOrEqual(3000);
        }
        break;
      case "actions":
        expect(block.elements.length).toBeLessThanOrEqual(25);
        for (const e of block.elements) {
          if ("action_id" in e) actionIds.push(e.action_id ?? "");
          if (e.type === "button") expect((e.value ?? "").length).toBeLessThanOrEqual(2000);
        }
        break;
      default:
        break;
    }
  }
  for (const id of actionIds) expect(id.length).toBeLessThanOrEqual(255);
  expect(new Set(actionIds).size).toBe(actionIds.length);
  expect(message.text.length).toBeGreaterThan(0);
}

const sectionTexts = (message: BlockMessage) =>
  message.blocks.flatMap((b) => (b.type === "section" && b.text ? [b.text.text] : []));

describe("toolsBlocks", () => {
  const contract = freeze(registry, {
    capabilities,
    scopes: { channel: { keys: { fetch_url: false } } },
  });
  const message = toolsBlocks(listView(contract), { scope: "conversation" });

  it("opens with N of M tools available and the mode", () => {
    expect(message.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "3 of 5 tools available", emoji: false },
    });
    expect(message.blocks[1]).toMatchObject({
      type: "context",
      elements: [{ type: "mrkdwn", text: "Mode *default*" }],
    });
    expect(message.text).toBe("3 of 5 tools available. Changes apply from the next message.");
  });

  it("shows each tool's state and who disabled it", () => {
    const texts = sectionTexts(message);
    expect(texts).toContain("`current_time` · resident");
    expect(texts).toContain("`run_python` · deferred (load with tool_search)");
    expect(texts).toContain("`fetch_url` · disabled by channel scope");
    expect(texts).toContain("`web_search` · unavailable: no search API key is configured");
  });

  it("gives each switchable tool a button carrying the change and the scope", () => {
    const byValue = new Map(controls(message).map((c) => [c.value, c.actionId]));
    expect(byValue.get("fetch_url|on|conversation|0")).toMatch(/^tools:toggle:\d+$/);
    expect(byValue.get("current_time|off|conversation|0")).toMatch(/^tools:toggle:\d+$/);
    // The capability floor is absolute: no button for an unavailable tool.
    expect([...byValue.keys()].some((v) => v.startsWith("web_search|"))).toBe(false);
  });

  it("offers no button for a tool the runtime scope switched off", () => {
    const runtime = freeze(registry, { scopes: { runtime: { keys: { fetch_url: false } } } });
    const values = controls(toolsBlocks(listView(runtime), { scope: "channel" })).map(
      (c) => c.value,
    );
    expect(values.some((v) => v.startsWith("fetch_url|"))).toBe(false);
  });

  it("picks the scope with a select showing the current one", () => {
    const channel = toolsBlocks(listView(contract), { scope: "channel" });
    const picker = channel.blocks.find(
      (b) => b.type === "section" && b.accessory?.type === "static_select",
    );
    expect(picker).toMatchObject({
      accessory: {
        action_id: "tools:scope",
        initial_option: { value: "channel|0", text: { text: "This channel" } },
      },
    });
    expect(
      controls(channel)
        .filter((c) => c.actionId === "tools:scope")
        .map((c) => c.value),
    ).toEqual(["conversation|0", "channel|0", "workspace|0"]);
  });

  it("ends with a footer saying changes apply from the next message", () => {
    const footer = message.blocks.at(-1);
    expect(footer?.type).toBe("context");
    expect(JSON.stringify(footer)).toContain("Changes apply from the next message.");
  });

  it("stays within Block Kit's limits", () => {
    expectWithinLimits(message);
  });

  it("pages a long list, with Previous and Next", () => {
    const items: ToolItem[] = Array.from({ length: 95 }, (_, i) => ({
      id: `tool_${i}`,
      state: "resident",
      detail: "",
    }));
    const view: ListView = {
      kind: "list",
      title: "95 of 95 tools available",
      mode: "full",
      items,
      footer: "",
    };
    const first = toolsBlocks(view, { scope: "workspace" });
    const last = toolsBlocks(view, { scope: "workspace", page: 2 });
    const beyond = toolsBlocks(view, { scope: "workspace", page: 99 });
    expect(
      controls(first)
        .filter((c) => c.actionId.startsWith("tools:page"))
        .map((c) => c.value),
    ).toEqual(["workspace|1"]);
    expect(
      controls(last)
        .filter((c) => c.actionId.startsWith("tools:page"))
        .map((c) => c.value),
    ).toEqual(["workspace|1"]);
    expect(sectionTexts(last)).toContain("`tool_94` · resident");
    expect(beyond).toEqual(last);
    expect(JSON.stringify(last.blocks.at(-1))).toContain("Page 3 of 3.");
  });

  it("property: any list stays within limits, shows every tool on one page, and every control parses back", () => {
    const item = fc.record({
      id: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      state: fc.constantFrom("resident", "deferred", "disabled", "unavailable"),
      detail: fc.string({ maxLength: 4000 }),
    }) as fc.Arbitrary<ToolItem>;
    fc.assert(
      fc.property(
        fc.uniqueArray(item, { maxLength: 130, selector: (i) => i.id }),
        fc.constantFrom(...TOOLS_UI_SCOPES),
        fc.integer({ min: 1, max: 45 }),
        (items, scope, pageSize) => {
          const view: ListView = { kind: "list", title: "t", mode: "default", items, footer: "f" };
          const pages = Math.max(1, Math.ceil(items.length / pageSize));
          const seen: string[] = [];
          for (let page = 0; page < pages; page++) {
            const message = toolsBlocks(view, { scope, page, pageSize });
            expectWithinLimits(message);
            for (const text of sectionTexts(message)) {
              const id = /^`([^`]+)` · /.exec(text)?.[1];
              if (id !== undefined) seen.push(id);
            }
            for (const control of controls(message)) {
              expect(control.actionId).toMatch(TOOLS_ACTION);
              const parsed = parseToolsAction(control.actionId, control.value);
              expect(parsed.ok).toBe(true);
              if (parsed.ok && parsed.action.kind === "toggle") {
                expect(parsed.action.page).toBe(page);
                expect(parsed.action.command.scope).toBe(scope);
                expect(items.map((i) => i.id)).toContain(parsed.action.command.key);
              }
            }
          }
          expect(seen).toEqual(items.map((i) => i.id));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses a page size that would not fit a message", () => {
    expect(() => toolsBlocks(listView(contract), { scope: "channel", pageSize: 46 })).toThrow(
      /pageSize must be a whole number from 1 to 45, got 46/,
    );
  });
});

describe("skillsBlocks", () => {
  const item = (name: string, state: "on" | "off", detail = ""): SkillItem => ({
    name,
    key: name.toLowerCase(),
    state,
    detail,
    source: "workspace",
    summary: "Turns a thread into meeting notes <with> & without fuss.",
    shadows: ["builtin"],
  });
  const view: SkillListView = {
    kind: "list",
    title: "1 of 2 skills available",
    items: [item("meeting-notes", "on"), item("bot-guide", "off", "the channel scope")],
    footer: "/skill <name> [request] uses a skill.",
  };
  const message = skillsBlocks(view, { scope: "channel" });

  it("shows each skill's state, source and summary, escaped", () => {
    expect(message.blocks[0]).toMatchObject({
      type: "header",
      text: { text: "1 of 2 skills available" },
    });
    expect(sectionTexts(message)).toContain(
      "`meeting-notes` · on · workspace skill, shadows the built-in skill\nTurns a thread into meeting notes &lt;with&gt; &amp; without fuss.",
    );
    expect(sectionTexts(message)[2]).toMatch(
      /^`bot-guide` · off \(disabled by the channel scope\)/,
    );
  });

  it("switches skills per channel or workspace, never per conversation", () => {
    const values = controls(message).map((c) => c.value);
    expect(values).toContain("meeting-notes|off|channel|0");
    expect(values).toContain("bot-guide|on|channel|0");
    expect(
      controls(message)
        .filter((c) => c.actionId === "skills:scope")
        .map((c) => c.value),
    ).toEqual(["channel|0", "workspace|0"]);
    for (const c of controls(message)) expect(c.actionId).toMatch(SKILLS_ACTION);
    expectWithinLimits(message);
  });

  it("says so when there are no skills", () => {
    const empty = skillsBlocks(
      { ...view, title: "0 of 0 skills available", items: [] },
      { scope: "channel" },
    );
    expect(sectionTexts(empty)).toEqual(["No skills found."]);
    expect(controls(empty)).toEqual([]);
  });
});

describe("parseToolsAction and parseSkillsAction", () => {
  it("reads a toggle as a /tools command", () => {
    expect(parseToolsAction("tools:toggle:3", "web_search|off|channel|1")).toEqual({
      ok: true,
      action: {
        kind: "toggle",
        command: { verb: "off", key: "web_search", scope: "channel" },
        page: 1,
      },
    });
    const parsed = parseToolsAction("tools:toggle:0", "web_search|on|workspace|0");
    if (!parsed.ok) throw parsed.error;
    expect(parseToolsCommand("/tools on web_search workspace")).toEqual(
      parsed.action.kind === "toggle" && parsed.action.command,
    );
  });

  it("reads the scope picker and the page buttons as a view to show", () => {
    expect(parseToolsAction("tools:scope", "workspace|2")).toEqual({
      ok: true,
      action: { kind: "view", scope: "workspace", page: 2 },
    });
    expect(parseSkillsAction("skills:page:next", "channel|1")).toEqual({
      ok: true,
      action: { kind: "view", scope: "channel", page: 1 },
    });
    expect(parseSkillsAction("skills:toggle:0", "meeting-notes|off|workspace|0")).toEqual({
      ok: true,
      action: {
        kind: "toggle",
        command: { verb: "off", name: "meeting-notes", scope: "workspace" },
        page: 0,
      },
    });
  });

  it("names what it could not read", () => {
    const unknown = parseToolsAction("tools:explode", "x");
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.message).toMatch(/^Unknown action "tools:explode"/);
    const global = parseToolsAction("tools:toggle", "web_search|on|global|0");
    if (!global.ok) expect(global.error.message).toContain("conversation, channel, workspace");
    const conversation = parseSkillsAction("skills:scope", "conversation|0");
    expect(conversation.ok).toBe(false);
    const badId = parseToolsAction("tools:toggle", "web search|on|channel|0");
    if (!badId.ok) expect(badId.error.message).toMatch(/^"web search" is not a tool id/);
    expect(badId.ok).toBe(false);
  });

  it("property: any action id and value give a typed action or a typed error, never a throw", () => {
    const near = (kind: string) =>
      fc.oneof(
        fc.string(),
        fc.constantFrom(`${kind}:toggle`, `${kind}:toggle:7`, `${kind}:scope`, `${kind}:page:prev`),
      );
    const value = fc.oneof(
      fc.string({ maxLength: 3000 }),
      fc
        .array(
          fc.oneof(
            fc.string({ maxLength: 8 }),
            fc.constantFrom(
              "on",
              "off",
              "channel",
              "workspace",
              "conversation",
              "global",
              "0",
              "12",
              "-1",
              "1e3",
              "web_search",
            ),
          ),
          { maxLength: 6 },
        )
        .map((parts) => parts.join("|")),
    );
    fc.assert(
      fc.property(near("tools"), near("skills"), value, (toolsId, skillsId, v) => {
        for (const parsed of [parseToolsAction(toolsId, v), parseSkillsAction(skillsId, v)]) {
          if (parsed.ok) {
            const { action } = parsed;
            expect(Number.isInteger(action.page) && action.page >= 0).toBe(true);
            const scope = action.kind === "view" ? action.scope : action.command.scope;
            expect([...TOOLS_UI_SCOPES, ...SKILLS_UI_SCOPES]).toContain(scope);
          } else {
            expect(parsed.error).toBeInstanceOf(SlackActionError);
            expect(parsed.error.message.length).toBeLessThan(400);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("tombstoneBlocks and errorBlocks", () => {
  const plainSentence = (message: BlockMessage, ends = /[.!?]$/): string => {
    expect(message.blocks).toHaveLength(1);
    const [block] = message.blocks;
    if (block?.type !== "context") throw new Error("expected a context block");
    const [element] = block.elements;
    expect(element).toMatchObject({ type: "plain_text", emoji: false });
    const text = element && "text" in element ? element.text : "";
    expect(text).not.toMatch(/[{}]/);
    expect(text).toMatch(ends);
    return text;
  };

  it("explains a disabled tool and how to turn it on here", () => {
    const contract = freeze(registry, {
      capabilities,
      scopes: { workspace: { keys: { "mcp:github": false } } },
    });
    const tombstone = tombstoneFor(contract, "mcp__github__create_issue") as Tombstone;
    expect(plainSentence(tombstoneBlocks(tombstone))).toBe(
      "The bot could not use mcp__github__create_issue: it is switched off in the workspace scope (mcp:github=off). Turn it on here with /tools on mcp__github__create_issue.",
    );
  });

  it("says only the operator can help with the runtime scope or a missing capability", () => {
    const runtime = freeze(registry, {
      capabilities,
      intent: setKey(EMPTY_INTENT, "fetch_url", "on"),
      scopes: { runtime: { keys: { fetch_url: false } } },
    });
    expect(plainSentence(tombstoneBlocks(tombstoneFor(runtime, "fetch_url") as Tombstone))).toMatch(
      /operator/,
    );
    expect(plainSentence(tombstoneBlocks(tombstoneFor(runtime, "web_search") as Tombstone))).toBe(
      "The bot could not use web_search: no search API key is configured. Only the bot's operator can make it available.",
    );
  });

  it("renders deferred and unknown tools as sentences too", () => {
    const contract = freeze(registry, { capabilities });
    expect(
      plainSentence(tombstoneBlocks(tombstoneFor(contract, "run_python") as Tombstone)),
    ).toMatch(/run_python/);
    expect(plainSentence(tombstoneBlocks(tombstoneFor(contract, "nope") as Tombstone))).toBe(
      'The bot tried to use a tool named "nope", which it does not have.',
    );
  });

  it("shows a command error as it stands and digs a message out of a JSON body", () => {
    const command = new CommandError(
      "chanel",
      "off",
      "/tools off <tool> [scope]",
      'Unknown scope "chanel"',
    );
    // A command error ends with the usage line, as the core writes it.
    expect(plainSentence(errorBlocks(command), /\]$/)).toBe(command.message);
    expect(plainSentence(errorBlocks(new Error("socket hang up")))).toBe(
      "Something went wrong: socket hang up.",
    );
    const provider = new Error(
      '400 {"error":{"message":"The model does not exist.","type":"invalid_request_error"}}',
    );
    expect(plainSentence(errorBlocks(provider))).toBe(
      "Something went wrong: 400 The model does not exist.",
    );
    expect(plainSentence(errorBlocks({ weird: true }))).toBe("Something went wrong.");
    expect(plainSentence(errorBlocks(new Error("")))).toBe("Something went wrong.");
  });
});
