import type { types } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import {
  CHAT_SCOPES,
  SCOPE_TABLE,
  SCOPES,
  SKILL_BUTTON_SCOPES,
  SKILL_SCOPES,
  scopeLetter,
  TOOL_BUTTON_SCOPES,
} from "../../src/core/availability/scopes.ts";
import { checkPermission, listView, parseToolsCommand } from "../../src/core/commands/index.ts";
import { parseSkillsCommand } from "../../src/core/commands/skills-parse.ts";
import { resolveSkills, skillListView } from "../../src/core/skills/index.ts";
import { commandDefinitions } from "../../src/platforms/discord/commands.ts";
import { listComponents } from "../../src/platforms/discord/components.ts";
import { parseListClick, UI_SCOPES } from "../../src/platforms/discord/custom-id.ts";
import { parseToolsAction } from "../../src/platforms/slack/block-actions.ts";
import { skillsBlocks, toolsBlocks } from "../../src/platforms/slack/blocks.ts";
import { decodePress, encodePress } from "../../src/platforms/telegram/callback-data.ts";
import { toolsKeyboard } from "../../src/platforms/telegram/keyboards.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { skill, source } from "../support/skills.ts";
import { freeze, registryOf, tool } from "../support/tools.ts";

const view = listView(freeze(registryOf(tool("current_time"), tool("fetch_url"))));
const skillView = skillListView(
  resolveSkills([source("builtin", [skill("meeting-notes"), skill("bot-guide")])], {}, {}),
);

/** The values of every option of the message's scope select (Slack). */
function slackScopeValues(blocks: readonly types.KnownBlock[], actionId: string): string[] {
  for (const block of blocks) {
    if (block.type === "section" && block.accessory?.type === "static_select") {
      const select = block.accessory as types.StaticSelect;
      if (select.action_id === actionId) return (select.options ?? []).map((o) => o.value ?? "");
    }
  }
  return [];
}

describe("the scope table", () => {
  it("names each scope once, shallow to deep, with a letter of its own", () => {
    expect(SCOPES).toEqual(SCOPE_TABLE.map((row) => row.name));
    expect(new Set(SCOPES).size).toBe(SCOPES.length);
    expect(new Set(SCOPES.map(scopeLetter)).size).toBe(SCOPES.length);
    // Runtime is the deepest: a process flag beats anything changed from chat.
    expect(SCOPES.at(-1)).toBe("runtime");
    expect(CHAT_SCOPES).not.toContain("runtime");
  });

  it("is what the /tools and /skills grammars accept as a scope, and nothing else", () => {
    for (const scope of SCOPES) {
      const tools = () => parseToolsCommand(`/tools off fetch_url ${scope}`);
      if ((CHAT_SCOPES as readonly string[]).includes(scope)) {
        expect(tools()).toMatchObject({ verb: "off", key: "fetch_url", scope });
      } else {
        expect(tools).toThrow();
      }
      const skills = () => parseSkillsCommand(`/skills off notes ${scope}`);
      if ((SKILL_SCOPES as readonly string[]).includes(scope)) {
        expect(skills()).toMatchObject({ verb: "off", name: "notes", scope });
      } else {
        expect(skills).toThrow();
      }
    }
  });

  it("gives every chat scope a permission rule: owners may change each, nobody else global", () => {
    const owner = { id: "U_OWNER", isPlatformAdmin: false };
    const stranger = { id: "U_X", isPlatformAdmin: false };
    const policy = { owners: ["U_OWNER"], admins: [], conversation: "anyone" as const };
    for (const scope of CHAT_SCOPES) {
      expect(checkPermission(owner, scope, policy).allowed).toBe(true);
      const refused = checkPermission(stranger, scope, policy);
      if (!refused.allowed) expect(refused.reason).toContain(scope);
    }
    expect(checkPermission(stranger, "global", policy).allowed).toBe(false);
  });

  it("gives every shared scope a key of its own in the key scheme", () => {
    const keys = new KeyScheme("sy");
    const address = {
      platform: "slack",
      workspace: "T1",
      channel: "C1",
      conversation: "C1:1.2",
    };
    const shared = CHAT_SCOPES.filter((s) => s !== "conversation");
    const built = shared.map((scope) => keys.scope(scope, address));
    expect(new Set(built).size).toBe(shared.length);
  });
});

describe("every platform's scope picker follows the table", () => {
  it("Slack offers the button scopes, deepest first, for /tools and /skills", () => {
    const tools = toolsBlocks(view, { scope: TOOL_BUTTON_SCOPES[0] ?? "conversation" });
    expect(slackScopeValues(tools.blocks, "tools:scope")).toEqual(
      TOOL_BUTTON_SCOPES.map((s) => `${s}|0`),
    );
    for (const scope of TOOL_BUTTON_SCOPES) {
      const parsed = parseToolsAction("tools:scope", `${scope}|0`);
      expect(parsed).toMatchObject({ ok: true, action: { kind: "view", scope } });
    }
    const skills = skillsBlocks(skillView, { scope: SKILL_BUTTON_SCOPES[0] ?? "channel" });
    expect(slackScopeValues(skills.blocks, "skills:scope")).toEqual(
      SKILL_BUTTON_SCOPES.map((s) => `${s}|0`),
    );
  });

  it("Telegram's scope row is the button scopes, each reading back from its callback data", () => {
    const message = toolsKeyboard(view, { scope: TOOL_BUTTON_SCOPES[0] ?? "conversation" });
    const row = (message.keyboard.inline_keyboard[0] ?? []).map((b) => b.text.replace(/^● /, ""));
    expect(row).toEqual([...TOOL_BUTTON_SCOPES]);
    for (const scope of TOOL_BUTTON_SCOPES) {
      const data = encodePress({ kind: "view", list: "tools", scope, page: 0 });
      expect(decodePress(data, () => [])).toEqual({
        ok: true,
        press: { kind: "view", list: "tools", scope, page: 0 },
      });
    }
  });

  it("Discord's select and slash-command choices are the table's", () => {
    expect(UI_SCOPES.tools).toEqual(TOOL_BUTTON_SCOPES);
    expect(UI_SCOPES.skills).toEqual(SKILL_BUTTON_SCOPES);
    const spec = {
      list: "tools" as const,
      title: "t",
      footer: "f",
      entries: [{ id: "fetch_url", state: "on", switchable: true }],
    };
    const rows = listComponents(spec, { scope: "conversation", page: 0 }).map(
      (r) => r.toJSON() as { components: { custom_id: string; options?: { value: string }[] }[] },
    );
    const scopeSelect = rows
      .flatMap((r) => r.components)
      .find((c) => c.custom_id.startsWith("tools:scope"));
    const offered = (scopeSelect?.options ?? []).map((o) => o.value);
    expect(offered).toEqual([...TOOL_BUTTON_SCOPES]);
    for (const scope of offered) {
      expect(parseListClick(scopeSelect?.custom_id ?? "", [scope])).toMatchObject({ ok: true });
    }
    const json = JSON.stringify(commandDefinitions());
    for (const scope of CHAT_SCOPES) expect(json).toContain(`"value":"${scope}"`);
  });
});
