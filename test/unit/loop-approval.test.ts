import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type DecidedApproval, runTurn, type StepCommit } from "../../src/core/agent/loop.ts";
import type { AssistantMessage, ChatMessage, ToolCall } from "../../src/core/agent/messages.ts";
import type { Provider } from "../../src/core/agent/provider.ts";
import type { ApprovalDecision, ApprovalWait } from "../../src/core/approvals/approval.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { freeze } from "../support/tools.ts";

const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0 };
const at = Date.UTC(2026, 11, 5, 21, 30);

function call(id: string, name: string, args: object = {}): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

/** A deploy tool under `ask` and a lookup tool under `on`; counts what ran. */
function setUp() {
  const ran: string[] = [];
  const tool = (id: string) =>
    defineTool({
      id,
      description: `${id} things`,
      parameters: z.object({ env: z.string().optional() }),
      execute: () => {
        ran.push(id);
        return `${id} done`;
      },
    });
  const registry = new ToolRegistry([tool("deploy"), tool("lookup")]);
  const contract = { ...freeze(registry), asking: new Set(["deploy"]) };
  const commits: StepCommit[] = [];
  const recorded: AssistantMessage[] = [];
  const step: AssistantMessage = {
    role: "assistant",
    content: null,
    tool_calls: [call("c1", "deploy", { env: "prod" }), call("c2", "lookup")],
  };
  const provider: Provider = {
    complete: async (request) =>
      request.messages.at(-1)?.role === "user"
        ? { content: null, toolCalls: step.tool_calls ?? [], finishReason: "tool_calls", usage }
        : { content: "All done.", toolCalls: [], finishReason: "stop", usage },
  };
  const run = (over: { calling?: AssistantMessage; approval?: DecidedApproval } = {}) =>
    runTurn({
      registry,
      contract,
      system: "test",
      history: [],
      turn: [{ role: "user", content: "ship it" } as ChatMessage],
      step: 0,
      loaded: [],
      provider,
      cacheKey: "k",
      maxSteps: 4,
      runTool: async (t, args) => ({
        outcome: "ok",
        output: String(await t.execute(args as never, {} as never)),
      }),
      commit: async (c) => void commits.push(c),
      recordCalls: async (_step, message) => void recorded.push(message),
      now: () => at,
      ...over,
    });
  const wait: ApprovalWait = {
    id: "abcdefghijkl",
    step: 1,
    calls: [{ callId: "c1", tool: "deploy", arguments: '{"env":"prod"}' }],
    requester: { user: "U1", name: "Alice" },
    requestedAt: at,
    expiresAt: at + 15 * 60_000,
  };
  const decided = (decision: ApprovalDecision, claimed = new Set<string>()): DecidedApproval => ({
    wait,
    decision,
    claim: async (c) => {
      if (claimed.has(c.id)) return false;
      claimed.add(c.id);
      return true;
    },
  });
  return { ran, commits, recorded, step, run, decided };
}

const results = (commit: StepCommit | undefined) =>
  (commit?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("a step that calls a tool under ask", () => {
  it("records the step's calls and ends the turn awaiting approval, running none of them", async () => {
    const t = setUp();
    const result = await t.run();
    expect(result.stop).toBe("awaiting_approval");
    expect(result.pending).toEqual([{ callId: "c1", tool: "deploy", arguments: '{"env":"prod"}' }]);
    expect(t.ran).toEqual([]);
    expect(t.commits).toEqual([]);
    expect(t.recorded).toEqual([t.step]);
  });

  it("runs the approved call once, the other call as usual, and goes on to the answer", async () => {
    const t = setUp();
    const result = await t.run({
      calling: t.step,
      approval: t.decided({ verdict: "approved", by: { user: "U1", name: "Alice" }, at }),
    });
    expect(result.stop).toBe("answer");
    expect(result.answer).toBe("All done.");
    expect(t.ran.sort()).toEqual(["deploy", "lookup"]);
    expect(results(t.commits[0])).toEqual(["deploy done", "lookup done"]);
  });

  it("answers a denied call with who denied it, and still runs the call that needed no approval", async () => {
    const t = setUp();
    await t.run({
      calling: t.step,
      approval: t.decided({ verdict: "denied", by: { user: "U1", name: "Alice" }, at }),
    });
    expect(t.ran).toEqual(["lookup"]);
    expect(results(t.commits[0])?.[0]).toMatch(/^not run: Alice denied it/);
    expect(results(t.commits[0])?.[1]).toBe("lookup done");
  });

  it("answers an expired call that nobody approved in time", async () => {
    const t = setUp();
    await t.run({ calling: t.step, approval: t.decided({ verdict: "expired", at }) });
    expect(results(t.commits[0])?.[0]).toBe("not run: nobody approved it within 15 min.");
  });

  it("never runs a call a crashed run claimed: it says it may have taken effect", async () => {
    const t = setUp();
    await t.run({
      calling: t.step,
      approval: t.decided({ verdict: "approved", by: { user: "U1" }, at }, new Set(["c1"])),
    });
    expect(t.ran).toEqual(["lookup"]);
    expect(results(t.commits[0])?.[0]).toMatch(/may have taken effect; not run again/);
  });

  it("waits on every ask call of a step at once, and one verdict answers each of them", async () => {
    const t = setUp();
    const two: AssistantMessage = {
      role: "assistant",
      content: null,
      tool_calls: [call("c1", "deploy", { env: "prod" }), call("c3", "deploy", { env: "eu" })],
    };
    const wait = {
      id: "abcdefghijkl",
      step: 1,
      calls: [
        { callId: "c1", tool: "deploy", arguments: '{"env":"prod"}' },
        { callId: "c3", tool: "deploy", arguments: '{"env":"eu"}' },
      ],
      requester: { user: "U1" },
      requestedAt: at,
      expiresAt: at + 60_000,
    };
    await t.run({
      calling: two,
      approval: {
        wait,
        decision: { verdict: "cancelled", at },
        claim: async () => true,
      },
    });
    expect(t.ran).toEqual([]);
    expect(results(t.commits[0])).toEqual([
      "not run: the turn was stopped before anyone approved it.",
      "not run: the turn was stopped before anyone approved it.",
    ]);
  });

  it("answers an ask tool that is not callable with its tombstone, never a wait", async () => {
    let asked = 0;
    const calling: Provider = {
      complete: async () => {
        asked++;
        return asked === 1
          ? { content: null, toolCalls: [call("d1", "deploy")], finishReason: "tool_calls", usage }
          : { content: "ok", toolCalls: [], finishReason: "stop", usage };
      },
    };
    const registry = new ToolRegistry([]);
    const result = await runTurn({
      registry,
      contract: { ...freeze(registry), asking: new Set(["deploy"]) },
      system: "s",
      history: [],
      turn: [],
      step: 0,
      loaded: [],
      provider: calling,
      cacheKey: "k",
      maxSteps: 3,
      runTool: async () => ({ outcome: "ok", output: "" }),
      commit: async () => {},
      now: () => 0,
    });
    expect(result.stop).toBe("answer");
  });
});
