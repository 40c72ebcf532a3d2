import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runTurn, type TurnInput } from "../../src/core/agent/loop.ts";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { createAnthropicProvider } from "../../src/providers/anthropic/provider.ts";
import { createStore } from "../../src/store/index.ts";
import {
  type FakeAnthropic,
  startFakeAnthropic,
  thinkingSignature,
} from "../../src/testing/fakes/anthropic.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { useTestRedis } from "../support/redis.ts";
import { freeze } from "../support/tools.ts";

/**
 * Extended thinking in a tool loop: Anthropic refuses the step after a tool
 * call unless its assistant turn starts with the thinking blocks that came
 * with the call, unchanged. A worker that dies between steps resumes from the
 * history in Redis, so the blocks must survive storage exactly.
 */

const db = useTestRedis("anthropic-thinking");
const KEY = "sk-ant-test";
const fakes: FakeAnthropic[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

let conversations = 0;
function newAddress(): ConversationAddress {
  conversations++;
  return { platform: "console", workspace: "w", channel: "c", conversation: `t${conversations}` };
}

const context = { platform: "console", workspace: "w", channel: "c", conversation: "v", user: "u" };
const weather = defineTool({
  id: "get_weather",
  description: "The weather in a city.",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}.`,
});
const registry = new ToolRegistry([weather]);

const THOUGHT = "The person asks about Paris; I should look the weather up.";

/**
 * Step 1 (thinking, then a tool call) is committed to Redis; the worker then
 * dies. A second run resumes the turn from what Redis holds, as the worker
 * does after a crash, with `reshape` applied to the stored messages.
 */
async function crashAndResume(
  server: FakeAnthropic,
  reshape: (stored: ChatMessage[]) => ChatMessage[] = (m) => m,
) {
  const { history } = createStore(db.redis, { prefix: db.prefix });
  const address = newAddress();
  const provider = createAnthropicProvider({
    apiKey: KEY,
    baseURL: server.url,
    model: "claude-test",
    maxTokens: 4096,
    thinkingBudget: 2048,
    temperature: 0.2,
    sleep: async () => {},
  });
  const base: Omit<TurnInput, "turn" | "step" | "commit"> = {
    registry,
    contract: freeze(registry),
    system: "You are a weather bot.",
    history: [],
    loaded: [],
    provider,
    cacheKey: "k",
    maxSteps: 4,
    runTool: (tool, args, call) => runTool(tool, args, call, context, { timeoutMs: 5_000 }),
    now: () => 0,
  };
  const question: ChatMessage = { role: "user", content: "Weather in Paris?" };
  await history.append(address, [question]);
  await expect(
    runTurn({
      ...base,
      turn: [question],
      step: 0,
      commit: async (step) => {
        await history.append(address, step.messages);
        throw new Error("the worker died after committing step 1");
      },
    }),
  ).rejects.toThrow("worker died");
  const stored = await history.load(address);
  const resumed = await runTurn({
    ...base,
    turn: reshape(stored),
    step: 1,
    commit: async (step) => void (await history.append(address, step.messages)),
  });
  return { resumed, stored: await history.load(address) };
}

describe("extended thinking on the Anthropic provider", () => {
  it("refuses a thinking budget outside the API's bounds when the provider is made, saying how to fix it", () => {
    const make = (thinkingBudget: number) => () =>
      createAnthropicProvider({ model: "m", maxTokens: 4096, thinkingBudget });
    expect(make(512)).toThrow(
      /from 1024 to below maxTokens \(4096\), not 512\. Lower it, raise maxTokens/,
    );
    expect(make(4096)).toThrow(/not 4096/);
    expect(make(1024)).not.toThrow();
  });

  it("keeps a tool step's thinking through Redis history and sends it back unchanged", async () => {
    const server = await startFakeAnthropic({ apiKey: KEY });
    fakes.push(server);
    server.script(
      {
        thinking: THOUGHT,
        redactedThinking: "EncryptedOpaqueBlob==",
        toolUses: [{ id: "toolu_1", name: "get_weather", input: { city: "Paris" } }],
      },
      { content: "It is sunny in Paris." },
    );
    const { resumed, stored } = await crashAndResume(server);
    expect(resumed.stop).toBe("answer");
    expect(resumed.answer).toBe("It is sunny in Paris.");
    const sent = [
      { type: "thinking", thinking: THOUGHT, signature: thinkingSignature(THOUGHT) },
      { type: "redacted_thinking", data: "EncryptedOpaqueBlob==" },
    ];
    const assistant = stored.find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.reasoning).toEqual(sent);
    // The resumed request's assistant turn starts with the blocks exactly as they streamed.
    const replayed = server.requests[1]?.body.messages[1].content as Record<string, unknown>[];
    expect(replayed.slice(0, 2)).toEqual(sent);
    expect(replayed[0]?.thinking).toBe(THOUGHT);
    expect(replayed[0]?.signature).toBe(thinkingSignature(THOUGHT));
    expect(replayed.slice(0, 2).some((b) => "cache_control" in b)).toBe(false);
    expect(replayed[2]).toMatchObject({ type: "tool_use", id: "toolu_1" });
    for (const request of server.requests) {
      expect(request.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
      expect(request.body.temperature).toBeUndefined();
    }
  });

  it("is refused as the API refuses it when the stored step lost its thinking", async () => {
    const server = await startFakeAnthropic({ apiKey: KEY });
    fakes.push(server);
    server.script({
      thinking: THOUGHT,
      toolUses: [{ id: "toolu_2", name: "get_weather", input: { city: "Paris" } }],
    });
    const { resumed } = await crashAndResume(server, (stored) =>
      stored.map((m) => {
        if (m.role !== "assistant") return m;
        const { reasoning: _dropped, ...rest } = m;
        return rest;
      }),
    );
    expect(resumed.stop).toBe("provider_error");
    expect(resumed.error?.kind).toBe("bad_request");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.usage).toBeUndefined();
  });

  it("is refused when the thinking came back changed", async () => {
    const server = await startFakeAnthropic({ apiKey: KEY });
    fakes.push(server);
    server.script({
      thinking: THOUGHT,
      toolUses: [{ id: "toolu_3", name: "get_weather", input: { city: "Paris" } }],
    });
    const { resumed } = await crashAndResume(server, (stored) =>
      stored.map((m) =>
        m.role === "assistant" && m.reasoning
          ? {
              ...m,
              reasoning: m.reasoning.map((b) => ({ ...b, thinking: `${String(b.thinking)}!` })),
            }
          : m,
      ),
    );
    expect(resumed.stop).toBe("provider_error");
    expect(resumed.error?.kind).toBe("bad_request");
  });
});
