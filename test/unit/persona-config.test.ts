import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  type PersonaChoice,
  type PersonaConfig,
  personaChoiceFor,
} from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";

const FILE = "switchyard.yaml";

function errorOf(text: string): ConfigError {
  try {
    parseConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("agent: persona", () => {
  it("reads an inline persona, a file, and overrides per workspace and channel", () => {
    const config = parseConfig(
      [
        "agent:",
        "  persona: You are Ada.",
        "  workspaces:",
        '    "slack:T1": { persona_file: ./support.md }',
        "  channels:",
        '    "telegram:-100": { persona: Réponds en français. }',
      ].join("\n"),
      FILE,
    );
    expect(config.agent.persona).toEqual({ text: "You are Ada." });
    expect(config.agent.workspaces).toEqual({ "slack:T1": { file: "./support.md" } });
    expect(config.agent.channels).toEqual({ "telegram:-100": { text: "Réponds en français." } });
  });

  it("refuses persona: and persona_file: together, naming the line and the fix", () => {
    const error = errorOf("agent:\n  persona: Hi\n  persona_file: ./p.md\n");
    expect(error.message).toMatch(/switchyard\.yaml:3/);
    expect(error.message).toMatch(/Keep one/);
  });

  it("refuses an empty persona and a channel key without its platform", () => {
    expect(errorOf('agent:\n  persona: "  "\n').message).toMatch(/is empty/);
    expect(errorOf("agent:\n  channels:\n    C123: { persona: Hi }\n").message).toMatch(
      /platform:id/,
    );
  });

  it("names the new keys when the agent section has an unknown one", () => {
    expect(errorOf("agent:\n  personna: Hi\n").message).toMatch(/persona:, persona_file:/);
  });

  it("picks the channel's persona, else the workspace's, else the global one", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (g, w, c) => {
        const none: Record<string, PersonaChoice> = {};
        const config: PersonaConfig = {
          ...(g ? { persona: { text: "global" } } : {}),
          workspaces: w ? { "slack:T1": { text: "workspace" } } : none,
          channels: c ? { "slack:C1": { text: "channel" } } : none,
        };
        const picked = personaChoiceFor(config, {
          platform: "slack",
          workspace: "T1",
          channel: "C1",
        });
        const expected = c ? "channel" : w ? "workspace" : g ? "global" : undefined;
        expect(picked && "text" in picked ? picked.text : undefined).toBe(expected);
        // Another channel of another workspace only ever gets the global one.
        const other = personaChoiceFor(config, {
          platform: "slack",
          workspace: "T2",
          channel: "C2",
        });
        expect(other && "text" in other ? other.text : undefined).toBe(g ? "global" : undefined);
      }),
    );
  });
});

describe("plugins:", () => {
  it("reads a list of files and packages, one entry as a plain string, duplicates once", () => {
    expect(parseConfig("plugins: [./a.js, pkg, ./a.js]\n", FILE).plugins).toEqual([
      "./a.js",
      "pkg",
    ]);
    expect(parseConfig("plugins: ./a.js\n", FILE).plugins).toEqual(["./a.js"]);
    expect(parseConfig("plugins:\n", FILE).plugins).toEqual([]);
  });

  it("refuses an entry that is not a path or a name", () => {
    expect(errorOf("plugins: [./a.js, 3]\n").message).toMatch(/file path or a package name/);
    expect(errorOf("plugins: { a: 1 }\n").message).toMatch(/list of files and packages/);
  });
});
