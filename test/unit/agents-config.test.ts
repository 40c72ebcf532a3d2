import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { conversationAgent } from "../../src/turn/conversation-agent.ts";

const FILE = "switchyard.yaml";

function errorOf(text: string): string {
  try {
    parseConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const MODELS = [
  "models:",
  "  list:",
  "    - name: small",
  "    - name: large",
  "toolsets:",
  "  support: [current_time]",
];

describe("agents: and bindings:", () => {
  it("reads agents with their persona, model, fallback, intent, skills, mode and overrides", () => {
    const config = parseConfig(
      [
        ...MODELS,
        "agents:",
        "  - id: support",
        "    name: Support desk",
        "    persona: You help customers.",
        "    model: small",
        "    fallback: [large]",
        "    toolset: support",
        "    web_search: off",
        "    tools: { fetch_url: ask, mcp: { github: off } }",
        "    skills: { meeting-notes: off }",
        "    mode: pi",
        "    limits: { user: 5/m }",
        "  - id: engineering",
        "    persona_file: ./eng.md",
        "bindings:",
        '  - { agent: support, channel: "slack:C1" }',
        '  - { agent: engineering, workspace: "slack:T1" }',
        '  - { agent: default, account: "telegram:mybot" }',
      ].join("\n"),
      FILE,
    );
    const [support, engineering] = config.agents;
    expect(support).toMatchObject({
      id: "support",
      name: "Support desk",
      persona: { text: "You help customers." },
      model: "small",
      fallback: ["large"],
      toolset: "support",
      webSearch: "off",
      tools: { fetch_url: "ask", "mcp:github": false },
      skills: { "meeting-notes": false },
      mode: "minimal",
    });
    expect(support?.limits?.user).toBeDefined();
    expect(engineering).toMatchObject({
      id: "engineering",
      name: "engineering",
      persona: { file: "./eng.md" },
    });
    expect(config.bindings).toEqual([
      { agent: "support", scope: "channel", target: "slack:C1" },
      { agent: "engineering", scope: "workspace", target: "slack:T1" },
      { agent: "default", scope: "account", target: "telegram:mybot" },
    ]);
  });

  it("leaves a config without agents as it was: no agents, no bindings", () => {
    const config = parseConfig("agent:\n  persona: You are Ada.\n", FILE);
    expect(config.agents).toEqual([]);
    expect(config.bindings).toEqual([]);
  });

  it("refuses what an agent or a binding names that the file does not have, saying what would", () => {
    expect(errorOf([...MODELS, "agents:", "  - { id: a, model: tiny }"].join("\n"))).toContain(
      '"tiny" is not in models.list. Use one of: large, small.',
    );
    expect(errorOf([...MODELS, "agents:", "  - { id: a, toolset: nope }"].join("\n"))).toContain(
      '"nope" is not a defined toolset',
    );
    expect(
      errorOf(["bindings:", '  - { agent: ghost, channel: "slack:C1" }'].join("\n")),
    ).toContain('"ghost" is not an agent. Use one of: default.');
    expect(errorOf(["agents:", "  - { id: default }"].join("\n"))).toContain(
      "is the agent the top-level settings make",
    );
    expect(errorOf(["agents:", "  - { id: a }", "  - { id: a }"].join("\n"))).toContain(
      '"a" is listed twice',
    );
    expect(
      errorOf(
        [
          "agents:",
          "  - { id: a }",
          "bindings:",
          '  - { agent: a, channel: "slack:C1", workspace: "slack:T1" }',
        ].join("\n"),
      ),
    ).toContain("a binding names one place");
    expect(errorOf(["agents:", "  - { id: a, persona: x, persona_file: y }"].join("\n"))).toContain(
      "is set beside persona:",
    );
    expect(errorOf(["agents:", "  - { id: Bad Id }"].join("\n"))).toContain("is not an agent id");
  });

  it("never throws anything but a ConfigError, whatever agents: and bindings: hold", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(value, value, (agents, bindings) => {
        const text = JSON.stringify({ agents, bindings });
        try {
          parseConfig(text, FILE);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("an account's agent:", () => {
  const accounts = (agent: string) =>
    [
      "agents:",
      "  - id: support",
      "telegram:",
      "  accounts:",
      "    - id: sales",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
      "      token: ${TELEGRAM_SALES_TOKEN}",
      `      agent: ${agent}`,
      "    - id: plain",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
      "      token: ${TELEGRAM_PLAIN_TOKEN}",
    ].join("\n");

  it("binds the account to that agent, as an account binding of bindings: would", () => {
    const config = parseConfig(accounts("support"), FILE);
    const where = (account?: string) => ({
      platform: "telegram",
      ...(account ? { account } : {}),
      workspace: "42",
      channel: "42",
      conversation: "42",
    });
    const none = { conversation: {}, channel: {} };
    expect(conversationAgent(config, where("sales"), none).agent.id).toBe("support");
    expect(conversationAgent(config, where("plain"), none).agent.id).toBe("default");
    expect(conversationAgent(config, where(), none).agent.id).toBe("default");
  });

  it("refuses an agent the file does not define, naming the account and the agents it has", () => {
    expect(errorOf(accounts("suport"))).toMatch(
      /account sales answers as "suport", which is not an agent\. Use one of: default, support\./,
    );
  });
});
