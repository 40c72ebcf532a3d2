import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import { ProviderError, type ProviderRequest } from "../../src/core/agent/provider.ts";
import { createAnthropicProvider } from "../../src/providers/anthropic/provider.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";

const fakes: FakeAnthropic[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

const KEY = "sk-ant-test";

async function fake(minCacheTokens = 1024): Promise<FakeAnthropic> {
  const started = await startFakeAnthropic({ apiKey: KEY, minCacheTokens });
  fakes.push(started);
  return started;
}

const weatherTool = {
  type: "function",
  function: {
    description: "The weather in a city.",
    name: "get_weather",
    parameters: { properties: { city: { type: "string" } }, required: ["city"], type: "object" },
  },
};

const noWait = async () => {};

function providerFor(server: FakeAnthropic, extra: Record<string, unknown> = {}) {
  return createAnthropicProvider({
    apiKey: KEY,
    baseURL: server.url,
    model: "claude-test",
    sleep: noWait,
    ...extra,
  });
}

describe("the Anthropic provider on the real SDK", () => {
  it("runs a tool call and its result through the Messages API, streaming text as it comes", async () => {
    const server = await fake();
    server.script(
      {
        content: "Let me check.",
        toolUses: [{ id: "toolu_1", name: "get_weather", input: { city: "Paris" } }],
      },
      { content: "It is sunny in Paris." },
    );
    const provider = providerFor(server);
    const shown: string[] = [];
    const base: Omit<ProviderRequest, "messages"> = {
      system: "You are a helpful bot.",
      tools: JSON.stringify([weatherTool]),
      cacheKey: "c1",
      onText: (soFar) => shown.push(soFar),
    };
    const history: ChatMessage[] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await provider.complete({ ...base, messages: history });
    expect(first.finishReason).toBe("tool_calls");
    expect(first.content).toBe("Let me check.");
    expect(first.toolCalls).toEqual([
      {
        id: "toolu_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
    history.push(
      { role: "assistant", content: first.content, tool_calls: first.toolCalls },
      { role: "tool", tool_call_id: "toolu_1", content: "sunny, 24°C" },
    );
    const second = await provider.complete({ ...base, messages: history });
    expect(second.content).toBe("It is sunny in Paris.");
    expect(second.finishReason).toBe("stop");
    expect(shown.at(-1)).toBe("It is sunny in Paris.");

    const sent = server.requests[1]?.body;
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.tools).toEqual([
      {
        name: "get_weather",
        description: "The weather in a city.",
        input_schema: weatherTool.function.parameters,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(sent.system).toEqual([
      { type: "text", text: "You are a helpful bot.", cache_control: { type: "ephemeral" } },
    ]);
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
    ]);
    expect(sent.messages[1].content).toEqual([
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(sent.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "sunny, 24°C",
    });
  });

  it("reads the earlier conversation from the cache on the next turn, and only thanks to its breakpoints", async () => {
    const server = await fake(300);
    const provider = providerFor(server, { cacheTtl: "1h" });
    const system = `You are a careful assistant. ${"Follow the house rules. ".repeat(80)}`;
    const request = (messages: ChatMessage[]): ProviderRequest => ({
      system,
      tools: JSON.stringify([weatherTool]),
      messages,
      cacheKey: "c2",
    });
    const history: ChatMessage[] = [{ role: "user", content: "First question, please." }];
    const one = await provider.complete(request(history));
    expect(one.usage.cachedTokens).toBe(0);
    const written = server.requests[0]?.usage?.cache_creation_input_tokens ?? 0;
    expect(written).toBeGreaterThan(300);
    // The write is in the usage, for its price.
    expect(one.usage.cacheWriteTokens).toBe(written);
    expect(server.requests[0]?.body.system[0].cache_control).toEqual({
      type: "ephemeral",
      ttl: "1h",
    });

    history.push(
      { role: "assistant", content: one.content },
      { role: "user", content: "And a second one." },
    );
    const two = await provider.complete(request(history));
    // Everything up to the first turn's last block was written then, and is read now.
    expect(two.usage.cachedTokens).toBeGreaterThanOrEqual(written);
    expect(two.usage.promptTokens).toBeGreaterThan(two.usage.cachedTokens);
    expect(two.usage.cachedTokens / two.usage.promptTokens).toBeGreaterThan(0.9);

    // The same conversation without breakpoints is never cached.
    server.cache.clear();
    const bare = (body: Record<string, unknown>) => stripMarks(body);
    const plain = server.requests.map((r) => bare(r.body));
    for (const body of plain) expect(server.cache.use(body).cache_read_input_tokens).toBe(0);
  });

  it("retries 529 overloaded and answers; gives up with a server error that keeps the status", async () => {
    const server = await fake();
    server.script({ overloaded: true }, { overloaded: true }, { content: "Made it." });
    const provider = providerFor(server);
    const ask = () =>
      provider.complete({
        system: "s",
        tools: "[]",
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
      });
    expect((await ask()).content).toBe("Made it.");
    expect(server.requests).toHaveLength(3);

    const once = providerFor(server, { maxRetries: 0 });
    server.script({ overloaded: true });
    const error = await once
      .complete({
        system: "s",
        tools: "[]",
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "server", status: 529 });
    expect((error as Error).message).toMatch(/overloaded/);
  });

  it("maps Anthropic's errors onto the provider's kinds, in words a person can act on", async () => {
    const server = await fake();
    const provider = providerFor(server, { maxRetries: 0 });
    const ask = () =>
      provider
        .complete({
          system: "s",
          tools: "[]",
          messages: [{ role: "user", content: "hi" }],
          cacheKey: "c",
        })
        .then(
          () => new ProviderError("server", "expected a failure"),
          (e: unknown) => e as ProviderError,
        );
    server.script({ status: 429 });
    expect(await ask()).toMatchObject({ kind: "rate_limit", status: 429 });
    server.script({ status: 400, errorMessage: "messages: bad thing" });
    const bad = await ask();
    expect(bad).toMatchObject({ kind: "bad_request", status: 400 });
    expect(bad.message).toContain("messages: bad thing");
    server.script({ status: 500 });
    expect(await ask()).toMatchObject({ kind: "server", status: 500 });
    server.script({ errorEvent: "overloaded_error" });
    expect(await ask()).toMatchObject({ kind: "server", status: 529 });

    const wrongKey = createAnthropicProvider({
      apiKey: "sk-ant-wrong",
      baseURL: server.url,
      model: "m",
    });
    const auth = await wrongKey
      .complete({
        system: "s",
        tools: "[]",
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
      })
      .then(
        () => new ProviderError("server", "expected a failure"),
        (e: unknown) => e as ProviderError,
      );
    expect(auth).toMatchObject({ kind: "auth", status: 401 });
    expect(auth.message).toContain("ANTHROPIC_API_KEY");
    expect(auth.message).not.toContain("sk-ant-wrong");
  });

  it("sends an image a person attached as an image block", async () => {
    const server = await fake();
    const provider = providerFor(server);
    await provider.complete({
      system: "s",
      tools: "[]",
      cacheKey: "c",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect(server.requests[0]?.body.messages[0].content).toEqual([
      { type: "text", text: "What is this?" },
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
        cache_control: { type: "ephemeral" },
      },
    ]);
  });
});

function stripMarks(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value), (key, v) => (key === "cache_control" ? undefined : v));
}
