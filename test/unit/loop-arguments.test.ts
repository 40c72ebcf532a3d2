import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runTurn, type StepCommit, type ToolOutcome } from "../../src/core/agent/loop.ts";
import type { ChatMessage, ToolCall } from "../../src/core/agent/messages.ts";
import type { Provider, ProviderRequest } from "../../src/core/agent/provider.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { freeze } from "../support/tools.ts";

const context = { platform: "console", workspace: "w", channel: "c", conversation: "v", user: "u" };

/**
 * The agent loop with the real tool runner, against a provider that answers
 * with the calls given (the fake OpenAI server streams arguments 8 characters
 * a chunk, which for 10 MB is over a million chunks: the size is the test here,
 * not the stream).
 */
async function turnWith(calls: readonly { id: string; arguments: string }[]) {
  let ran = 0;
  const store = defineTool({
    id: "store_json",
    description: "Stores a JSON document.",
    parameters: z.object({ doc: z.json() }),
    execute: () => {
      ran++;
      return "stored";
    },
  });
  const registry = new ToolRegistry([store]);
  const requests: ProviderRequest[] = [];
  const provider: Provider = {
    complete: async (request) => {
      requests.push(request);
      const toolCalls: ToolCall[] =
        requests.length === 1
          ? calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: "store_json", arguments: call.arguments },
            }))
          : [];
      return {
        content: toolCalls.length > 0 ? null : "done",
        toolCalls,
        finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
        usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
      };
    },
  };
  const outcomes: ToolOutcome[] = [];
  const commits: StepCommit[] = [];
  const result = await runTurn({
    registry,
    contract: freeze(registry),
    system: "test",
    history: [],
    turn: [{ role: "user", content: "store these" }],
    step: 0,
    loaded: [],
    provider,
    cacheKey: "k",
    maxSteps: 4,
    runTool: (tool, args, call) => runTool(tool, args, call, context, { timeoutMs: 5_000 }),
    commit: async (step) => void commits.push(step),
    onToolCall: (_name, outcome) => void outcomes.push(outcome),
    now: () => 0,
  });
  const results = Object.fromEntries(
    (requests[1]?.messages ?? [])
      .filter((m): m is Extract<ChatMessage, { role: "tool" }> => m.role === "tool")
      .map((m) => [m.tool_call_id, m.content]),
  );
  return { result, results, outcomes, ran };
}

describe("the agent loop on arguments it cannot use", () => {
  it("answers 10 MB of arguments with invalid_args naming the limit, and finishes the turn", async () => {
    const huge = JSON.stringify({ doc: "x".repeat(10 * 1024 * 1024) });
    const { result, results, outcomes, ran } = await turnWith([
      { id: "huge", arguments: huge },
      { id: "fine", arguments: '{"doc": {"a": 1}}' },
    ]);
    expect(result.answer).toBe("done");
    expect(results).toEqual({
      huge: `The arguments for store_json are ${huge.length} bytes of JSON; the limit is 1048576 bytes (1 MiB). Call it again with only the values it needs; send long content in smaller parts.`,
      fine: "stored",
    });
    expect(outcomes).toEqual(["invalid_args", "ok"]);
    expect(ran).toBe(1);
  });

  it("answers JSON nested 100,000 levels deep with invalid_args instead of overflowing a validator", async () => {
    const deep = `{"doc":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`;
    const { result, results, outcomes, ran } = await turnWith([{ id: "deep", arguments: deep }]);
    expect(result.answer).toBe("done");
    expect(results.deep).toBe(
      "The arguments for store_json nest deeper than 64 levels, the limit. Call it again with flatter arguments, as its parameters describe them.",
    );
    expect(outcomes).toEqual(["invalid_args"]);
    expect(ran).toBe(0);
  });
});
