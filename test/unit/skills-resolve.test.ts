import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LoggerPort, WarnOnce } from "../../src/core/logger.ts";
import {
  describeShadowing,
  disabledMessage,
  findSkill,
  lookupSkill,
  resolveSkills,
  type SkillLayer,
  type SkillToggleStack,
} from "../../src/core/skills/index.ts";
import { skill, source } from "../support/skills.ts";

function recorder(): LoggerPort & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

const builtins = source("builtin", [skill("meeting-notes"), skill("bot-guide")]);

describe("resolveSkills: discovery and shadowing", () => {
  it("lists every skill once, sorted by key, all on by default", () => {
    const resolution = resolveSkills([builtins, source("global", [skill("Standup", "global")])]);
    expect(resolution.skills.map((s) => s.skill.name)).toEqual([
      "bot-guide",
      "meeting-notes",
      "Standup",
    ]);
    expect(resolution.enabled.map((s) => s.name)).toEqual([
      "bot-guide",
      "meeting-notes",
      "Standup",
    ]);
    expect(resolution.skills.every((s) => s.state.by.kind === "default")).toBe(true);
  });

  it("lets a deeper skill of the same name shadow a shallower one, case ignored", () => {
    const global = source("global", [skill("Meeting-Notes", "global", { body: "global body" })]);
    const workspace = source("workspace", [
      skill("MEETING-NOTES", "workspace", { body: "workspace body" }),
    ]);
    // Given out of order: the kinds decide depth, not the array order.
    const resolution = resolveSkills([workspace, builtins, global]);
    const notes = findSkill(resolution, "meeting-notes");
    expect(notes?.skill.body).toBe("workspace body");
    expect(notes?.shadowed.map((s) => s.source)).toEqual(["global", "builtin"]);
    expect(describeShadowing(notes ?? expect.fail())).toEqual([
      "global skill Meeting-Notes (/srv/global/Meeting-Notes) shadowed by workspace skill MEETING-NOTES (/srv/workspace/MEETING-NOTES)",
      "built-in skill meeting-notes shadowed by workspace skill MEETING-NOTES (/srv/workspace/MEETING-NOTES)",
    ]);
  });

  it("restores the shadowed skill when the deeper one is deleted", () => {
    const workspace = source("workspace", [skill("meeting-notes", "workspace", { body: "mine" })]);
    expect(findSkill(resolveSkills([builtins, workspace]), "meeting-notes")?.skill.body).toBe(
      "mine",
    );
    const deleted = source("workspace", []);
    const restored = findSkill(resolveSkills([builtins, deleted]), "meeting-notes");
    expect(restored?.skill.source).toBe("builtin");
    expect(restored?.shadowed).toEqual([]);
  });

  it("makes a later global folder deeper than an earlier one", () => {
    const first = source("global", [skill("x", "global", { body: "first" })], "/a");
    const second = source("global", [skill("x", "global", { body: "second" })], "/b");
    expect(findSkill(resolveSkills([first, second]), "X")?.skill.body).toBe("second");
  });

  it("keeps one of two same-named skills in one folder, and warns once", () => {
    const log = recorder();
    const warnings = new WarnOnce(log);
    const folder = source("global", [
      skill("x", "global", { origin: "/g/b" }),
      skill("X", "global", { origin: "/g/a" }),
    ]);
    const resolution = resolveSkills([folder], {}, { warnings });
    resolveSkills([folder], {}, { warnings });
    expect(findSkill(resolution, "x")?.skill.origin).toBe("/g/a");
    expect(log.messages).toHaveLength(1);
    expect(log.messages[0]).toContain("/g/a and /g/b");
  });
});

describe("resolveSkills: toggles", () => {
  const sources = [builtins];

  it("lets the deepest scope that names a skill decide", () => {
    const toggles: SkillToggleStack = {
      config: { "meeting-notes": false },
      workspace: { "meeting-notes": true },
      channel: { "bot-guide": false },
    };
    const resolution = resolveSkills(sources, toggles);
    expect(findSkill(resolution, "meeting-notes")?.state).toEqual({
      enabled: true,
      by: { kind: "scope", scope: "workspace", layer: "workspace", name: "meeting-notes" },
    });
    expect(findSkill(resolution, "bot-guide")?.state.enabled).toBe(false);
    expect(resolution.enabled.map((s) => s.name)).toEqual(["meeting-notes"]);
  });

  it("puts owners' global changes from chat over the config file", () => {
    const resolution = resolveSkills(sources, {
      config: { "bot-guide": false },
      global: { "bot-guide": true },
    });
    expect(findSkill(resolution, "bot-guide")?.state.by).toMatchObject({ layer: "global" });
  });

  it("matches toggles to skills case-insensitively, off winning between two spellings", () => {
    const resolution = resolveSkills(sources, {
      channel: { "Meeting-Notes": true, "MEETING-NOTES": false },
    });
    expect(findSkill(resolution, "meeting-notes")?.state.enabled).toBe(false);
  });

  it("ignores a toggle for an unknown skill and warns once per name", () => {
    const log = recorder();
    const warnings = new WarnOnce(log);
    const toggles = { channel: { "no-such-skill": false }, config: { "No-Such-Skill": true } };
    const resolution = resolveSkills(sources, toggles, { warnings });
    resolveSkills(sources, toggles, { warnings });
    expect(resolution.skills).toHaveLength(2);
    expect(log.messages).toEqual([
      'Unknown skill "no-such-skill" in the channel scope is ignored: no skill folder has a skill of that name. Check the spelling against /skills or `switchyard skills`.',
    ]);
  });

  it("decides like a walk from the deepest layer down, for any toggles", () => {
    const names = ["meeting-notes", "bot-guide", "Bot-Guide", "other"];
    const layer = fc.dictionary(fc.constantFrom(...names), fc.boolean(), { maxKeys: 3 });
    const stack = fc.record(
      { config: layer, global: layer, workspace: layer, channel: layer },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(stack, (toggles: SkillToggleStack) => {
        const resolution = resolveSkills(sources, toggles);
        for (const resolved of resolution.skills) {
          let expected: { enabled: boolean; layer?: SkillLayer } = { enabled: true };
          for (const layer of ["channel", "workspace", "global", "config"] as const) {
            const said = Object.entries(toggles[layer] ?? {}).filter(
              ([name]) => name.toLowerCase() === resolved.key,
            );
            if (said.length === 0) continue;
            expected = { enabled: said.every(([, on]) => on), layer };
            break;
          }
          expect(resolved.state.enabled).toBe(expected.enabled);
          const by = resolved.state.by;
          expect(by.kind === "scope" ? by.layer : undefined).toBe(expected.layer);
        }
      }),
    );
  });
});

describe("disabled skills", () => {
  it("answer with the deciding scope and the command that re-enables them", () => {
    const resolution = resolveSkills([builtins], { workspace: { "meeting-notes": false } });
    const found = lookupSkill(resolution, "Meeting-Notes");
    expect(found.kind).toBe("disabled");
    expect(found.kind === "disabled" && found.message).toBe(
      "meeting-notes is disabled by the workspace scope — enable with /skills on meeting-notes",
    );
  });

  it("name the config file when it decides", () => {
    expect(
      disabledMessage("bot-guide", {
        kind: "scope",
        scope: "global",
        layer: "config",
        name: "bot-guide",
      }),
    ).toBe(
      "bot-guide is disabled by the global scope (config file) — enable with /skills on bot-guide",
    );
  });

  it("are not suggested for a misspelled name", () => {
    const resolution = resolveSkills([builtins], { channel: { "meeting-notes": false } });
    const found = lookupSkill(resolution, "meeting-note");
    expect(found).toEqual({
      kind: "unknown",
      name: "meeting-note",
      message: 'There is no skill "meeting-note". /skills lists the skills this bot has.',
    });
    const near = lookupSkill(resolveSkills([builtins]), "meeting-note");
    expect(near.kind === "unknown" && near.message).toContain("Did you mean meeting-notes?");
  });
});
