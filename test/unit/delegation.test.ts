import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Checkpoint, ChildCheckpoint } from "../../src/core/agent/checkpoint.ts";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import type { Provider, ProviderRequest } from "../../src/core/agent/provider.ts";
import {
  type AgentDefinition,
  agentsOf,
  budgetedProvider,
  childAnswer,
  childPath,
  DEFAULT_DELEGATION,
  delegatesBlock,
  delegationLimits,
  delegationStatus,
  MAX_CHILD_ANSWER,
  refuseDelegation,
} from "../../src/core/agents/index.ts";
import { ConfigError } from "../../src/core/config/index.ts";
import { activityPhrase, toolActivity } from "../../src/core/delivery/activity.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../../src/store/checkpoint-json.ts";
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

const TWO_AGENTS = [
  "agents:",
  "  - id: lead",
  "    delegates: [research, research]",
  "    delegation: { depth: 2, tokens: 9000 }",
  "  - id: research",
  "",
].join("\n");

function agent(id: string, more: Partial<AgentDefinition> = {}): AgentDefinition {
  return { id, name: id, tools: {}, skills: {}, ...more };
}

describe("delegates: and delegation: in agents:", () => {
  it("reads the agents an agent may ask, once each, and its bounds with the defaults filled in", () => {
    const config = parseConfig(TWO_AGENTS, FILE);
    const [lead, research] = config.agents;
    expect(lead?.delegates).toEqual(["research"]);
    expect(lead?.delegation).toEqual({ depth: 2, steps: DEFAULT_DELEGATION.steps, tokens: 9000 });
    expect(research?.delegates).toBeUndefined();
    expect(delegationLimits(research as AgentDefinition)).toEqual(DEFAULT_DELEGATION);
    expect(DEFAULT_DELEGATION.depth).toBe(1);
  });

  it("parses the Delegation example of docs/config/agents.md as it stands", () => {
    const section = readPage("docs/config/agents.md").split("## Delegation")[1] ?? "";
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const [support] = parseConfig(block, "docs/config/agents.md").agents;
    expect(support?.delegates).toEqual(["engineering"]);
    expect(support?.delegation).toEqual(DEFAULT_DELEGATION);
  });

  it("refuses a delegate the file does not define, naming the ones it does", () => {
    expect(errorOf("agents:\n  - id: lead\n    delegates: [reserch]\n")).toBe(
      'switchyard.yaml:3: agents[0].delegates[0]: "reserch" is not an agent. Use one of: default, lead.',
    );
  });

  it("refuses bounds that are not whole numbers in range, and unknown keys", () => {
    expect(errorOf("agents:\n  - id: lead\n    delegation: { depth: 0 }\n")).toMatch(/at least 1/);
    expect(errorOf("agents:\n  - id: lead\n    delegation: { steps: 2.5 }\n")).toMatch(
      /whole number/,
    );
    expect(errorOf("agents:\n  - id: lead\n    delegation: { deep: 2 }\n")).toMatch(
      /unknown key "deep"\. delegation: takes depth:, steps: and tokens:/,
    );
  });
});

describe("who may ask whom", () => {
  const book = new Map([
    ["default", agent("default")],
    ["lead", agent("lead", { delegates: ["research", "gone"] })],
    ["research", agent("research", { name: "Research desk" })],
  ]);

  it("lets an agent ask only the agents its delegates: name and the config still has", () => {
    const lead = book.get("lead") as AgentDefinition;
    expect(refuseDelegation(lead, "research", book)).toBeUndefined();
    expect(refuseDelegation(lead, "default", book)).toBe(
      'Agent lead may not ask "default". Ask one of: research.',
    );
    expect(refuseDelegation(lead, "gone", book)).toMatch(/may not ask "gone"/);
    expect(refuseDelegation(book.get("research") as AgentDefinition, "lead", book)).toBe(
      'Agent research may not ask "lead". It may ask none.',
    );
  });

  it("has the delegation capability only with delegates and a level left", () => {
    expect(delegationStatus(book.get("lead") as AgentDefinition, 1)).toEqual({ available: true });
    expect(delegationStatus(book.get("lead") as AgentDefinition, 0)).toMatchObject({
      available: false,
      reason: expect.stringContaining("depth"),
    });
    expect(delegationStatus(book.get("research") as AgentDefinition, 3)).toMatchObject({
      available: false,
      reason: expect.stringContaining("no delegates:"),
    });
  });

  it("names the agents it may ask in the system prompt, the same bytes every time", () => {
    const block = delegatesBlock(book.get("lead") as AgentDefinition, book);
    expect(block).toContain("- research (Research desk)");
    expect(block).not.toContain("gone");
    expect(delegatesBlock(book.get("lead") as AgentDefinition, book)).toBe(block);
    expect(delegatesBlock(book.get("research") as AgentDefinition, book)).toBe("");
  });

  it("finds the config's agents by id, default first", () => {
    const config = parseConfig(TWO_AGENTS, FILE);
    expect([...agentsOf(config).keys()]).toEqual(["default", "lead", "research"]);
  });
});

describe("a child's answer as its call's result", () => {
  const research = agent("research");

  it("labels it by how the child ended", () => {
    expect(childAnswer(research, { answer: " Tea. ", stop: "answer" })).toEqual({
      output: "research answered:\nTea.",
      outcome: "ok",
    });
    expect(childAnswer(research, { answer: "x", stop: "provider_error" }).outcome).toBe("error");
    expect(childAnswer(research, { answer: "", stop: "awaiting_approval" }).output).toMatch(
      /cannot wait/,
    );
    expect(childAnswer(research, { answer: "", stop: "interrupted" }).output).toMatch(/stopped/);
  });

  it("is capped whatever the child says", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: MAX_CHILD_ANSWER * 2 }), (said) => {
        const { output } = childAnswer(research, { answer: said, stop: "answer" });
        expect(output.length).toBeLessThanOrEqual(MAX_CHILD_ANSWER + 200);
        if (said.trim().length <= MAX_CHILD_ANSWER) expect(output).toContain(said.trim());
        else expect(output).toMatch(/\[cut: the answer was \d+ characters/);
      }),
      { numRuns: 50 },
    );
  });

  it("keys each child by its call path, nested under its caller's", () => {
    expect(childPath(undefined, "call_1")).toBe("call_1");
    expect(childPath("call_1", "call_7")).toBe("call_1/call_7");
  });
});

describe("the status line while a child runs", () => {
  it("names the agent asked by its id, and nothing the model wrote beyond an id", () => {
    expect(activityPhrase(toolActivity("ask_agent", { agent: "engineering", task: "x" }))).toBe(
      "asking engineering",
    );
    expect(activityPhrase(toolActivity("ask_agent", { agent: "Tell *everyone*", task: "x" }))).toBe(
      "asking another agent",
    );
  });
});

describe("a child's token bound", () => {
  const reply = (promptTokens: number) => ({
    content: "step",
    toolCalls: [],
    finishReason: "stop",
    usage: { promptTokens, cachedTokens: 0, completionTokens: 10 },
  });
  const request: ProviderRequest = { system: "", tools: "[]", messages: [], cacheKey: "k" };

  it("asks the model until the tokens are spent (counting what a crashed run spent), then closes", async () => {
    let asked = 0;
    const model: Provider = {
      complete: async () => {
        asked++;
        return reply(40);
      },
    };
    const seen: number[] = [];
    const spent = { promptTokens: 20, cachedTokens: 0, completionTokens: 0 };
    const bounded = budgetedProvider(model, 100, spent, (u) => seen.push(u.promptTokens));
    expect((await bounded.complete(request)).content).toBe("step"); // 20 -> 70
    expect((await bounded.complete(request)).content).toBe("step"); // 70 -> 120
    const closing = await bounded.complete(request);
    expect(closing.content).toMatch(/used the 100 tokens/);
    expect(closing.toolCalls).toEqual([]);
    expect(asked).toBe(2);
    expect(seen).toEqual([40, 40]);
  });
});

describe("children in the checkpoint", () => {
  const message: fc.Arbitrary<ChatMessage> = fc.oneof(
    fc.record({ role: fc.constant("user" as const), content: fc.string() }),
    fc.record({
      role: fc.constant("assistant" as const),
      content: fc.option(fc.string(), { nil: null }),
    }),
    fc.record({
      role: fc.constant("tool" as const),
      tool_call_id: fc.string(),
      content: fc.string(),
    }),
  );
  const count = fc.nat({ max: 1_000_000 });
  const child: fc.Arbitrary<ChildCheckpoint> = fc.record({
    agent: fc.string({ minLength: 1 }),
    step: fc.nat({ max: 50 }),
    messages: fc.array(message, { maxLength: 6 }),
    loaded: fc.array(fc.string(), { maxLength: 3 }),
    usage: fc.record({ promptTokens: count, cachedTokens: count, completionTokens: count }),
  });

  it("decode to what was encoded", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), child), (children) => {
        const checkpoint: Checkpoint = {
          v: 1,
          turnId: "t1",
          step: 2,
          historyStart: 0,
          inboxCount: 1,
          contractHash: "h",
          loaded: [],
          delivered: [],
          children,
        };
        const decoded = decodeCheckpoint(encodeCheckpoint(checkpoint));
        expect(decoded.problem).toBeUndefined();
        expect(decoded.checkpoint).toEqual(JSON.parse(JSON.stringify(checkpoint)));
      }),
      { numRuns: 100 },
    );
  });

  it("refuses a child whose usage is not counts, naming the field", () => {
    const raw = JSON.stringify({
      v: 1,
      turnId: "t1",
      step: 1,
      historyStart: 0,
      inboxCount: 1,
      contractHash: "h",
      loaded: [],
      delivered: [],
      children: { call_1: { agent: "a", step: 1, messages: [], loaded: [], usage: {} } },
    });
    expect(decodeCheckpoint(raw).problem).toMatch(/^children\.call_1\.usage/);
  });
});
