import { describe, expect, it } from "vitest";
import {
  agentsOf,
  DEFAULT_DELEGATION,
  delegatesAnywhere,
  delegatesBlock,
  delegationLimits,
  delegationStatus,
  IMPLICIT_DEFAULT,
  refuseDelegation,
  resolveAgent,
} from "../../src/core/agents/index.ts";
import { ConfigError } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { readPage } from "../support/docs.ts";

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

const DESK = {
  platform: "slack",
  workspace: "T0ACME",
  channel: "C0ANY",
  conversation: "C0ANY",
};

describe("delegates: of the default agent (the top-level agent: section)", () => {
  it("lets the agent no binding picks ask the agents it names, with its own bounds", () => {
    const config = parseConfig(
      [
        "agent:",
        "  delegates: [engineering, engineering]",
        "  delegation: { depth: 2 }",
        "agents:",
        "  - id: engineering",
        "    persona: You are Acme's engineering helper.",
        "",
      ].join("\n"),
      FILE,
    );
    const agents = agentsOf(config);
    const { agent } = resolveAgent(agents, DESK, config.bindings, {});
    expect(agent.id).toBe("default");
    expect(agent.delegates).toEqual(["engineering"]);
    expect(delegationLimits(agent)).toEqual({ ...DEFAULT_DELEGATION, depth: 2 });
    expect(delegationStatus(agent, delegationLimits(agent).depth)).toEqual({ available: true });
    expect(refuseDelegation(agent, "engineering", agents)).toBeUndefined();
    expect(delegatesBlock(agent, agents)).toContain("- engineering");
    // So the bot has ask_agent at all.
    expect(delegatesAnywhere(config)).toBe(true);
  });

  it("leaves a config without them as it was: no delegates, no ask_agent", () => {
    const config = parseConfig("agent:\n  mode: full\nagents:\n  - id: engineering\n", FILE);
    expect(agentsOf(config).get("default")).toBe(IMPLICIT_DEFAULT);
    expect(delegatesAnywhere(config)).toBe(false);
    expect(delegatesAnywhere(parseConfig("agent:\n  delegates: []\n", FILE))).toBe(false);
  });

  it("refuses an agent the file does not define, naming the ones it does", () => {
    expect(errorOf("agent:\n  delegates: [enginering]\nagents:\n  - id: engineering\n")).toBe(
      'switchyard.yaml:2: agent.delegates[0]: "enginering" is not an agent. Use one of: default, engineering.',
    );
    expect(errorOf("agent:\n  delegation: { depth: 9 }\n")).toMatch(/at most 4/);
    expect(errorOf("agent:\n  delegate: [engineering]\n")).toMatch(
      /unknown key "delegate".*delegates: and delegation:/,
    );
  });

  it("parses the docs' example of the default agent delegating as it stands", () => {
    const section = readPage("docs/config/agents.md").split("### From the default agent")[1] ?? "";
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const config = parseConfig(block, "docs/config/agents.md");
    expect(agentsOf(config).get("default")?.delegates).toEqual(["engineering"]);
  });
});
