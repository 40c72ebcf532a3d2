import { describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, setKey } from "../../src/core/availability/intent.ts";
import {
  type ListPanel,
  listView,
  renderText,
  skillsPanel,
  toolsPanel,
} from "../../src/core/commands/index.ts";
import { renderSkillsText, resolveSkills, skillListView } from "../../src/core/skills/index.ts";
import { listComponents } from "../../src/platforms/discord/components.ts";
import { listBlocks } from "../../src/platforms/slack/blocks.ts";
import { listKeyboard } from "../../src/platforms/telegram/keyboards.ts";
import { skill, source } from "../support/skills.ts";
import { freeze, registryOf, tool } from "../support/tools.ts";

const capabilities: Capabilities = {
  search_provider: { available: false, reason: "no search API key is configured" },
};

function toolsList() {
  const registry = registryOf(
    tool("current_time"),
    tool("fetch_url"),
    tool("web_search", { capability: "search_provider" }),
  );
  return listView(
    freeze(registry, {
      capabilities,
      intent: setKey(EMPTY_INTENT, "fetch_url", "off"),
      scopes: { runtime: { keys: { current_time: false } } },
    }),
  );
}

describe("the list panel", () => {
  it("words each tool's state as the text list does, and offers a button only where one can switch it", () => {
    const view = toolsList();
    const panel = toolsPanel(view);
    const text = renderText(view);
    for (const entry of panel.entries) expect(text).toContain(entry.state);
    const byId = Object.fromEntries(panel.entries.map((e) => [e.id, e]));
    // The runtime scope holds current_time: the operator's, like the capability floor.
    expect(byId.current_time).toMatchObject({ on: false, switchable: true, buttoned: false });
    expect(byId.fetch_url).toMatchObject({ on: false, switchable: true, buttoned: true });
    expect(byId.web_search).toMatchObject({ on: false, switchable: false, buttoned: false });
    expect(byId.fetch_url?.switchState).toMatch(/^off: disabled by /);
  });

  it("says where a skill comes from and what it shadows, as the text list does", () => {
    const resolution = resolveSkills(
      [source("builtin", [skill("meeting-notes")]), source("workspace", [skill("meeting-notes")])],
      {},
      {},
    );
    const view = skillListView(resolution);
    const [entry] = skillsPanel(view).entries;
    expect(entry?.on).toBe(true);
    expect(renderSkillsText(view)).toContain(`${entry?.source}, shadows ${entry?.shadows}`);
  });

  it("is all three platforms need: each renders a panel no list view made", () => {
    const panel: ListPanel = {
      list: "skills",
      noun: "skill",
      title: "1 of 1 skills available",
      mode: undefined,
      entries: [
        {
          id: "handmade",
          state: "on",
          switchState: "on",
          on: true,
          asks: false,
          switchable: true,
          buttoned: true,
          source: "inline skill",
          shadows: "",
          summary: "Made by hand.",
        },
      ],
      empty: "No skills found.",
      footer: "footer",
    };
    expect(JSON.stringify(listBlocks(panel, { scope: "channel" }))).toContain("skills:toggle:0");
    expect(listKeyboard(panel, { scope: "channel" }).html).toContain("Made by hand.");
    const rows = listComponents(panel, { scope: "channel", page: 0 }).map((r) => r.toJSON());
    expect(JSON.stringify(rows)).toContain("handmade");
  });
});
