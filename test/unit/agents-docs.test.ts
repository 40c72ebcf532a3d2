import { describe, expect, it } from "vitest";
import { agentsOf, resolveAgent } from "../../src/core/agents/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { readPage } from "../support/docs.ts";

/** The page's first yaml block: the config it says parses as it stands. */
function example(): string {
  const block = /```yaml\n([\s\S]*?)```/.exec(readPage("docs/config/agents.md"))?.[1];
  if (block === undefined) throw new Error("docs/config/agents.md has no yaml block");
  return block;
}

const at = (channel: string, workspace = "T0ACME", platform = "slack", account?: string) => ({
  platform,
  ...(account !== undefined ? { account } : {}),
  workspace,
  channel,
  conversation: channel,
});

describe("docs/config/agents.md", () => {
  it("loads, and binds the support and engineering agents where it says", () => {
    const config = parseConfig(example(), "docs/config/agents.md");
    expect(config.agents.map((a) => a.id)).toEqual(["support", "engineering"]);
    const agents = agentsOf(config);
    const who = (address: ReturnType<typeof at>) =>
      resolveAgent(agents, address, config.bindings, {}).agent.id;
    expect(who(at("C0HELP"))).toBe("support");
    expect(who(at("C0ANY", "T0ENG"))).toBe("engineering");
    expect(who(at("C0ONCALL"))).toBe("engineering");
    expect(who(at("C0RANDOM"))).toBe("default");
    expect(who(at("-100", "-100", "telegram", "acme_help_bot"))).toBe("support");
    // A chat binding at the conversation beats the config's channel binding.
    expect(
      resolveAgent(agents, at("C0HELP"), config.bindings, { conversation: "engineering" }).agent.id,
    ).toBe("engineering");
  });
});
