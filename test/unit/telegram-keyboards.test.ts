import fc from "fast-check";
import type { InlineKeyboardButton } from "grammy/types";
import { describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, setKey } from "../../src/core/availability/intent.ts";
import { listView } from "../../src/core/commands/index.ts";
import { resolveSkills, skillListView } from "../../src/core/skills/index.ts";
import { RESERVED_IDS } from "../../src/core/tools/tool.ts";
import {
  CALLBACK_DATA_MAX,
  decodePress,
  encodePress,
  type KeyboardPress,
  SKILLS_UI_SCOPES,
  TOOLS_UI_SCOPES,
} from "../../src/platforms/telegram/callback-data.ts";
import {
  type KeyboardMessage,
  PAGE_SIZE,
  skillsKeyboard,
  toolsKeyboard,
} from "../../src/platforms/telegram/keyboards.ts";
import { parseTelegramHtml } from "../../src/testing/fakes/telegram-html.ts";
import { skill, source } from "../support/skills.ts";
import { freeze, registryOf, tool } from "../support/tools.ts";

const toolId = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const skillName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
const page = fc.integer({ min: 0, max: 9_999 });

const pressArb: fc.Arbitrary<KeyboardPress> = fc.oneof(
  fc.record({
    kind: fc.constant("switch" as const),
    list: fc.constant("tools" as const),
    verb: fc.constantFrom("on" as const, "off" as const),
    id: toolId,
    scope: fc.constantFrom(...TOOLS_UI_SCOPES),
    page,
  }),
  fc.record({
    kind: fc.constant("switch" as const),
    list: fc.constant("skills" as const),
    verb: fc.constantFrom("on" as const, "off" as const),
    id: skillName,
    scope: fc.constantFrom(...SKILLS_UI_SCOPES),
    page,
  }),
  fc.record({
    kind: fc.constant("view" as const),
    list: fc.constantFrom("tools" as const),
    scope: fc.constantFrom(...TOOLS_UI_SCOPES),
    page,
  }),
);

function callbackButtons(message: KeyboardMessage): InlineKeyboardButton.CallbackButton[] {
  return message.keyboard.inline_keyboard.flat() as InlineKeyboardButton.CallbackButton[];
}

describe("callback data", () => {
  it("fits Telegram's 64 bytes and reads back as the same press, for ids of any length", () => {
    fc.assert(
      fc.property(pressArb, fc.array(toolId, { maxLength: 5 }), (press, others) => {
        const data = encodePress(press);
        expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_DATA_MAX);
        const live = press.kind === "switch" ? [...others, press.id] : others;
        expect(decodePress(data, () => live)).toEqual({ ok: true, press });
      }),
      { numRuns: 500 },
    );
  });

  it("names a short id as written and a long one by hash", () => {
    const short = encodePress({
      kind: "switch",
      list: "tools",
      verb: "off",
      id: "web_search",
      scope: "channel",
      page: 0,
    });
    expect(short).toBe("t|0|h|0|web_search");
    const long = "x".repeat(64);
    const hashed = encodePress({
      kind: "switch",
      list: "tools",
      verb: "on",
      id: long,
      scope: "conversation",
      page: 3,
    });
    expect(hashed).toMatch(/^t\|1\|c\|3\|#[A-Za-z0-9_-]{10}$/);
  });

  it("says a button is stale when its hashed tool is gone, and never throws on foreign data", () => {
    const data = encodePress({
      kind: "switch",
      list: "tools",
      verb: "on",
      id: "y".repeat(64),
      scope: "workspace",
      page: 0,
    });
    const gone = decodePress(data, () => ["other_tool"]);
    expect(gone).toEqual({
      ok: false,
      problem: "The tool on this button is gone. Send the command again for a fresh list.",
    });
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (junk) => {
        const result = decodePress(junk, () => ["a"]);
        if (!result.ok) expect(result.problem).toMatch(/Send the command again/);
      }),
    );
    expect(decodePress("s|v|c|0", () => []).ok).toBe(false);
  });
});

const capabilities: Capabilities = {
  search_provider: { available: false, reason: "no search API key is configured" },
};

describe("toolsKeyboard", () => {
  it("shows each tool's state, a switch for each one a button may move, the scope row selected", () => {
    const registry = registryOf(
      tool("current_time"),
      tool("fetch_url"),
      tool("web_search", { capability: "search_provider" }),
    );
    const contract = freeze(registry, {
      capabilities,
      intent: setKey(EMPTY_INTENT, "fetch_url", "off"),
    });
    const message = toolsKeyboard(listView(contract), { scope: "channel", note: "done & dusted" });
    expect(callbackButtons(message).map((b) => b.text)).toEqual([
      "conversation",
      "● channel",
      "workspace",
      "Turn off current_time",
      "Turn on fetch_url",
    ]);
    const parsed = parseTelegramHtml(message.html);
    expect(parsed.text).toContain("done & dusted");
    expect(parsed.text).toContain("unavailable: no search API key is configured");
    expect(parsed.text).toContain("for the channel scope");
  });

  it("gives every page valid HTML within 4,096 and buttons that read back, whatever the tools", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          toolId.filter((id) => !RESERVED_IDS.has(id)),
          { minLength: 0, maxLength: 30 },
        ),
        fc.nat({ max: 5 }),
        fc.constantFrom(...TOOLS_UI_SCOPES),
        (ids, wanted, scope) => {
          const contract = freeze(registryOf(...ids.map((id) => tool(id))), {});
          const view = listView(contract);
          const message = toolsKeyboard(view, { scope, page: wanted });
          const parsed = parseTelegramHtml(message.html);
          expect(parsed.text.length).toBeLessThanOrEqual(4_096);
          const pages = Math.max(1, Math.ceil(ids.length / PAGE_SIZE));
          const at = Math.min(wanted, pages - 1);
          for (const b of callbackButtons(message)) {
            expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
            const decoded = decodePress(b.callback_data, () => ids);
            expect(decoded.ok).toBe(true);
            if (decoded.ok && decoded.press.kind === "switch") {
              expect(decoded.press).toMatchObject({ verb: "off", scope, page: at });
              expect(ids).toContain(decoded.press.id);
            }
          }
          const switches = callbackButtons(message).filter((b) => b.text.startsWith("Turn"));
          expect(switches.length).toBe(
            Math.min(PAGE_SIZE, Math.max(0, ids.length - at * PAGE_SIZE)),
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("skillsKeyboard", () => {
  it("switches skills per channel or workspace, never per conversation", () => {
    const resolution = resolveSkills(
      [source("builtin", [skill("meeting-notes"), skill("bot-guide")])],
      { config: { "bot-guide": false } },
      {},
    );
    const message = skillsKeyboard(skillListView(resolution), { scope: "conversation" });
    expect(callbackButtons(message).map((b) => b.text)).toEqual([
      "● channel",
      "workspace",
      "Turn off meeting-notes",
      "Turn on bot-guide",
    ]);
    expect(parseTelegramHtml(message.html).text).toContain("1 of 2 skills available");
  });
});
