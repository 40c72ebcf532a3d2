import { afterEach, describe, expect, it } from "vitest";
import { checkModel } from "../../src/cli/doctor/model.ts";
import { providerFromEnv } from "../../src/cli/platforms.ts";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import type { ProviderRequest } from "../../src/core/agent/provider.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { modelConfiguredIn, providerNameOf } from "../../src/runtime/provider-env.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";

const closing: (FakeAnthropic | FakeOpenAI)[] = [];
afterEach(async () => {
  for (const fake of closing.splice(0)) await fake.close();
});

const silent = { warn: () => {} };

const lookup = {
  type: "function",
  function: {
    description: "Looks a word up.",
    name: "lookup",
    parameters: { properties: { word: { type: "string" } }, type: "object" },
  },
};

describe("choosing Anthropic", () => {
  it("model.provider: anthropic sends the bot's own model to ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY and the configured ttl", async () => {
    const claude = await startFakeAnthropic({ apiKey: "sk-ant-own" });
    closing.push(claude);
    claude.script({ content: "Hello from Claude." });
    const config = parseConfig("model:\n  provider: anthropic\n  cache_ttl: 1h\n", "m.yaml");
    const provider = providerFromEnv(
      {
        ANTHROPIC_API_KEY: "sk-ant-own",
        ANTHROPIC_BASE_URL: claude.url,
        SWITCHYARD_MODEL: "claude-x",
      },
      silent,
      () => config.model,
      () => config.models,
    );
    const reply = await provider.complete({
      system: "Be brief.",
      tools: "[]",
      messages: [{ role: "user", content: "hi" }],
      cacheKey: "c",
    });
    expect(reply.content).toBe("Hello from Claude.");
    expect(claude.requests[0]?.body.model).toBe("claude-x");
    expect(claude.requests[0]?.body.system[0].cache_control).toEqual({
      type: "ephemeral",
      ttl: "1h",
    });
  });

  it("is the bot's own provider when only Anthropic's variables are set, and the doctor's check counts them", () => {
    expect(providerNameOf({ ANTHROPIC_API_KEY: "k" })).toBe("anthropic");
    expect(providerNameOf({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "o" })).toBe("openai");
    expect(providerNameOf({ OPENAI_API_KEY: "o" }, "anthropic")).toBe("anthropic");
    expect(modelConfiguredIn({ ANTHROPIC_API_KEY: "k" })).toBe(true);
    expect(modelConfiguredIn({ OPENAI_API_KEY: "o" }, "anthropic")).toBe(false);
  });

  it("/model moves a conversation between providers mid-history, every tool call replaying with its result both ways", async () => {
    const openai = await startFakeOpenAI();
    const claude = await startFakeAnthropic({ apiKey: "sk-ant-far" });
    closing.push(openai, claude);
    const config = parseConfig(
      "models:\n  list:\n    - name: gpt-own\n    - name: claude-far\n      provider: anthropic\n      api_key_env: FAR_KEY\n",
      "m.yaml",
    );
    const provider = providerFromEnv(
      {
        OPENAI_BASE_URL: openai.url,
        OPENAI_API_KEY: "sk-own",
        FAR_KEY: "sk-ant-far",
        ANTHROPIC_BASE_URL: claude.url,
        SWITCHYARD_MODEL: "gpt-own",
      },
      silent,
      () => config.model,
      () => config.models,
    );
    const history: ChatMessage[] = [];
    const step = async (model: string | undefined) => {
      const request: ProviderRequest = {
        system: "s",
        tools: JSON.stringify([lookup]),
        messages: history,
        cacheKey: "c",
        ...(model ? { model } : {}),
      };
      const reply = await provider.complete(request);
      history.push({
        role: "assistant",
        content: reply.content,
        ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls } : {}),
      });
      for (const call of reply.toolCalls)
        history.push({ role: "tool", tool_call_id: call.id, content: `meaning of ${call.id}` });
      return reply;
    };

    // Turn 1 on the OpenAI-compatible server, with a tool call.
    openai.script(
      { toolCalls: [{ id: "call_a", name: "lookup", arguments: { word: "cache" } }] },
      { content: "A cache keeps things." },
    );
    history.push({ role: "user", content: "What is a cache?" });
    await step(undefined);
    await step(undefined);
    // Turn 2: /model claude-far; Claude calls a tool too.
    claude.script(
      { toolUses: [{ id: "toolu_b", name: "lookup", input: { word: "prefix" } }] },
      { content: "A prefix comes first." },
    );
    history.push({ role: "user", content: "And a prefix?" });
    await step("claude-far");
    expect((await step("claude-far")).content).toBe("A prefix comes first.");
    // Turn 3: back to the bot's own model.
    openai.script({ content: "You are welcome." });
    history.push({ role: "user", content: "Thanks!" });
    expect((await step("gpt-own")).content).toBe("You are welcome.");

    // Claude saw the OpenAI turn's call as a tool_use paired with its tool_result.
    const seen = claude.requests[1]?.body.messages;
    expect(seen.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(seen[1].content).toEqual([
      { type: "tool_use", id: "call_a", name: "lookup", input: { word: "cache" } },
    ]);
    expect(seen[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "call_a" });
    expect(claude.requests[1]?.headers.authorization).toBe("Bearer sk-ant-far");
    // The OpenAI server saw Claude's call in its own shape, with its result.
    const back = openai.requests.at(-1)?.body.messages as {
      role: string;
      tool_calls?: unknown;
      tool_call_id?: string;
    }[];
    expect(back.find((m) => m.role === "assistant" && m.tool_calls)).toBeDefined();
    expect(back.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([
      "call_a",
      "toolu_b",
    ]);
    expect(
      back.find((m) => JSON.stringify(m.tool_calls ?? []).includes("toolu_b"))?.tool_calls,
    ).toEqual([
      {
        id: "toolu_b",
        type: "function",
        function: { name: "lookup", arguments: '{"word":"prefix"}' },
      },
    ]);
  });

  it("doctor probes the Anthropic model with a tool and a breakpoint, and names a refused key", async () => {
    const claude = await startFakeAnthropic({ apiKey: "sk-ant-doc" });
    closing.push(claude);
    const config = parseConfig("model:\n  provider: anthropic\n", "m.yaml");
    const env = {
      ANTHROPIC_API_KEY: "sk-ant-doc",
      ANTHROPIC_BASE_URL: claude.url,
      SWITCHYARD_MODEL: "claude-doc",
    };
    const [good] = await checkModel({ env, config, timeoutMs: 5_000 });
    expect(good).toMatchObject({ ok: true });
    expect(good?.detail).toContain(`claude-doc at ${claude.url} answers`);
    expect(claude.requests[0]?.body.tools[0].cache_control).toEqual({ type: "ephemeral" });
    const [bad] = await checkModel({
      env: { ...env, ANTHROPIC_API_KEY: "sk-ant-nope" },
      config,
      timeoutMs: 5_000,
    });
    expect(bad).toMatchObject({
      ok: false,
      fix: "set ANTHROPIC_API_KEY to a key this server accepts",
    });
    const [none] = await checkModel({ env: {}, config, timeoutMs: 5_000 });
    expect(none?.detail).toMatch(
      /model.provider is anthropic but no Anthropic server is configured/,
    );
  });

  it("model.provider: anthropic without Anthropic's variables answers with the one to set", async () => {
    const config = parseConfig("model:\n  provider: anthropic\n", "m.yaml");
    const provider = providerFromEnv({ OPENAI_API_KEY: "sk-o" }, silent, () => config.model);
    await expect(
      provider.complete({
        system: "s",
        tools: "[]",
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
      }),
    ).rejects.toMatchObject({
      kind: "unconfigured",
      message: expect.stringContaining("ANTHROPIC_API_KEY is not set"),
    });
  });

  it("model.thinking_budget turns extended thinking on for the bot's own Claude, and a models: entry's own budget wins for it", async () => {
    const claude = await startFakeAnthropic({ apiKey: "sk-ant-own" });
    closing.push(claude);
    claude.script({ content: "Thought about it." }, { content: "Thought harder." });
    const config = parseConfig(
      "model:\n  provider: anthropic\n  thinking_budget: 2048\nmodels:\n  list:\n    - name: claude-deep\n      provider: anthropic\n      thinking_budget: 4096\n",
      "m.yaml",
    );
    const provider = providerFromEnv(
      {
        ANTHROPIC_API_KEY: "sk-ant-own",
        ANTHROPIC_BASE_URL: claude.url,
        SWITCHYARD_MODEL: "claude-x",
      },
      silent,
      () => config.model,
      () => config.models,
    );
    const ask = (model?: string) =>
      provider.complete({
        system: "Be brief.",
        tools: "[]",
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
        ...(model ? { model } : {}),
      });
    await ask();
    await ask("claude-deep");
    expect(claude.requests.map((r) => r.body.thinking)).toEqual([
      { type: "enabled", budget_tokens: 2048 },
      { type: "enabled", budget_tokens: 4096 },
    ]);
  });

  it("refuses a thinking budget the Messages API would refuse, saying what to write", () => {
    expect(() => parseConfig("model:\n  thinking_budget: 512\n", "m.yaml")).toThrow(
      /at least 1024 tokens/,
    );
    expect(() => parseConfig("model:\n  thinking_budget: 9000\n", "m.yaml")).toThrow(
      /below 8192 tokens/,
    );
    expect(() =>
      parseConfig("models:\n  list:\n    - name: c\n      thinking_budget: lots\n", "m.yaml"),
    ).toThrow(/expected a number of tokens/);
  });

  it("refuses an unknown provider or ttl with a message that says what it takes", () => {
    expect(() => parseConfig("model:\n  provider: gemini\n", "m.yaml")).toThrow(
      /expected openai .* or anthropic/,
    );
    expect(() =>
      parseConfig("models:\n  list:\n    - name: c\n      cache_ttl: 2h\n", "m.yaml"),
    ).toThrow(/expected 5m or 1h/);
  });
});
