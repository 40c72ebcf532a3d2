import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProviderError, type ProviderRequest } from "../../src/core/agent/provider.ts";
import { tracedProvider } from "../../src/observability/tracing-model.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { fallbackChain } from "../support/fallback-chain.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";
import { startTestTracing, type TestTracing } from "../support/tracing.ts";

let tracing: TestTracing;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(async () => {
  await tracing.stop();
});

const closing: (FakeAnthropic | FakeOpenAI | Pipeline)[] = [];
afterEach(async () => {
  for (const running of closing.splice(0)) await running.close();
});

const _silent = { warn: () => {} };

/**
 * Claude (`claude-first`, on the Anthropic fake) falling back to
 * `gpt-second` (on the OpenAI fake), with the fallback metric, as
 * `switchyard start` builds the provider; the bot's own model is `ownModel`.
 */
async function setup(fallbackYaml = "[gpt-second]", ownModel = "gpt-second") {
  const claude = await startFakeAnthropic({ apiKey: "sk-ant" });
  const openai = await startFakeOpenAI();
  closing.push(claude, openai);
  const { metrics, routed } = fallbackChain({
    claudeUrl: claude.url,
    claudeKey: "sk-ant",
    openaiUrl: openai.url,
    ownModel,
    fallback: fallbackYaml,
  });
  return { claude, openai, metrics, routed, provider: tracedProvider(routed) };
}

const chat = { platform: "chat", workspace: "T1", channel: "C1", conversation: "C1-thread" };

/**
 * A bot on `claude-first` whose answers stream into a chat that edits
 * messages (the turn traces its own model requests), and a way to send it a
 * message and wait for the turn to end.
 */
async function botOnChain() {
  const models = await setup("[gpt-second]", "claude-first");
  const outbound = new RecordingOutbound();
  const ended: string[] = [];
  const pipe = await startPipeline({
    provider: models.routed,
    outbounds: { chat: outbound },
    streamEditMs: 50,
    observe: { turn: ({ outcome }) => void ended.push(outcome) },
  });
  closing.push(pipe);
  const turn = async (text: string) => {
    await pipe.app.queue.enqueue(pipe.message(text, chat));
    await expect.poll(() => ended.length, { timeout: 20_000, interval: 20 }).toBe(1);
    return ended[0];
  };
  return { ...models, outbound, turn };
}

const request = (onText?: (t: string) => void): ProviderRequest => ({
  system: "s",
  tools: "[]",
  messages: [{ role: "user", content: "hello" }],
  cacheKey: "conv-1",
  model: "claude-first",
  ...(onText ? { onText } : {}),
});

describe("a fallback chain across providers", () => {
  it("moves a step Claude keeps answering 529 to the next model, with one answer, the metric and the trace", async () => {
    const { claude, openai, metrics, provider } = await setup();
    // Overloaded on every attempt, the provider's own retries included.
    claude.setResponder(() => ({ overloaded: true, headers: { "retry-after": "0" } }));
    openai.script({ content: "Answered by the second model." });
    const shown: string[] = [];
    const reply = await provider.complete(request((t) => shown.push(t)));
    expect(reply.content).toBe("Answered by the second model.");
    expect(shown.at(-1)).toBe("Answered by the second model.");
    expect(claude.requests.length).toBeGreaterThanOrEqual(2);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]?.body.model).toBe("gpt-second");
    // Its own cache key, naming provider and model: the fallback never lands in the first model's cache.
    expect(openai.requests[0]?.body.prompt_cache_key).toBe("conv-1:openai:gpt-second");
    expect(
      await metrics.registry.getSingleMetricAsString("switchyard_model_fallback_total"),
    ).toContain(
      'switchyard_model_fallback_total{from="claude-first",to="gpt-second",reason="overloaded"} 1',
    );
    const span = tracing.spans().findLast((s) => s.name === "switchyard.model.request");
    const event = span?.events.find((e) => e.name === "switchyard.model.fallback");
    expect(event?.attributes).toEqual({
      "switchyard.fallback.from": "claude-first",
      "switchyard.fallback.to": "gpt-second",
      "switchyard.fallback.reason": "overloaded",
    });
  });

  it("keeps the provider's own retries for a model with no next one: 529 twice, then Claude answers", async () => {
    const { claude, openai, metrics, provider } = await setup();
    const busy = { overloaded: true, headers: { "retry-after": "0" } };
    claude.script(busy, busy, { content: "Claude, on its third try." });
    // An agent whose chain is empty: the request names no next model.
    const reply = await provider.complete({ ...request(), fallback: [] });
    expect(reply.content).toBe("Claude, on its third try.");
    expect(claude.requests).toHaveLength(3);
    expect(openai.requests).toHaveLength(0);
    expect(
      await metrics.registry.getSingleMetricAsString("switchyard_model_fallback_total"),
    ).not.toContain("claude-first");
  });

  it("never falls back once text reached the person: the cut-short answer stands", async () => {
    const { claude, openai, provider } = await setup();
    claude.script({ content: "Half an answer", errorEvent: "overloaded_error" });
    const shown: string[] = [];
    const error = await provider.complete(request((t) => shown.push(t))).then(
      () => new ProviderError("server", "expected a failure"),
      (e: unknown) => e as ProviderError,
    );
    expect(shown.at(-1)).toBe("Half an answer");
    expect(error).toMatchObject({ kind: "server", status: 529 });
    expect(error.message).toMatch(/^Half an answer\n\n\(The model provider is overloaded/);
    expect(claude.requests).toHaveLength(1);
    expect(openai.requests).toHaveLength(0);
  });

  it("never falls back for a failure the next model would share (a refused request)", async () => {
    const { claude, openai, provider } = await setup();
    claude.script({ status: 400, errorMessage: "messages: bad request" });
    const error = await provider.complete(request()).then(
      () => new ProviderError("server", "expected a failure"),
      (e: unknown) => e as ProviderError,
    );
    expect(error).toMatchObject({ kind: "bad_request", status: 400 });
    expect(openai.requests).toHaveLength(0);
  });

  it("refuses a fallback the list does not have", () => {
    expect(() =>
      parseConfig("models:\n  list:\n    - name: a\n      fallback: [b]\n", "m.yaml"),
    ).toThrow(/b is not in models.list/);
    expect(() =>
      parseConfig("models:\n  list:\n    - name: a\n      fallback: [a]\n", "m.yaml"),
    ).toThrow(/cannot fall back to itself/);
  });
});

describe("a turn on a fallback chain", () => {
  it("completes on the second model when the first answers 529 twice: one answer, the metric and the trace", async () => {
    const bot = await botOnChain();
    tracing.exporter.reset();
    // Overloaded twice, then it would answer: a model with a next one does not wait for that.
    bot.claude.script({ overloaded: true }, { overloaded: true });
    bot.claude.setResponder(() => ({ content: "Claude, on its third try." }));
    bot.openai.script({ content: "Answered by the second model." });

    expect(await bot.turn("what is a lease?")).toBe("answer");

    expect(bot.outbound.visible()).toEqual(["Answered by the second model."]);
    expect(bot.outbound.calls.filter((c) => c.kind === "post")).toHaveLength(1);
    expect(bot.claude.requests).toHaveLength(2);
    expect(bot.openai.requests.map((r) => r.body.model)).toEqual(["gpt-second"]);
    expect(
      await bot.metrics.registry.getSingleMetricAsString("switchyard_model_fallback_total"),
    ).toContain(
      'switchyard_model_fallback_total{from="claude-first",to="gpt-second",reason="overloaded"} 1',
    );
    const requests = tracing.spans().filter((s) => s.name === "switchyard.model.request");
    expect(requests).toHaveLength(1);
    expect(
      requests[0]?.events.find((e) => e.name === "switchyard.model.fallback")?.attributes,
    ).toEqual({
      "switchyard.fallback.from": "claude-first",
      "switchyard.fallback.to": "gpt-second",
      "switchyard.fallback.reason": "overloaded",
    });
  });

  it("never falls back once an earlier step's text reached the person: the turn ends with the note", async () => {
    const bot = await botOnChain();
    bot.claude.script({
      content: "Let me look that up.",
      toolUses: [{ name: "lookup", input: { word: "lease" } }],
    });
    // The step after the tool call: overloaded on every try, the provider's own retries included.
    bot.claude.setResponder(() => ({ overloaded: true, headers: { "retry-after": "0" } }));
    bot.openai.script({ content: "Answered by the second model." });

    expect(await bot.turn("what is a lease?")).toBe("provider_error");

    // The person watched the first step's text stream in; no other model's answer replaces it.
    expect(bot.outbound.calls.some((c) => c.text === "Let me look that up.")).toBe(true);
    expect(bot.outbound.visible()).toEqual([
      "The model provider is overloaded right now (HTTP 529). Please try again in a few minutes.",
    ]);
    expect(bot.outbound.calls.some((c) => c.text?.includes("second model"))).toBe(false);
    expect(bot.openai.requests).toHaveLength(0);
    // A step no model can take over keeps the provider's own retries.
    expect(bot.claude.requests).toHaveLength(1 + 5);
    expect(
      await bot.metrics.registry.getSingleMetricAsString("switchyard_model_fallback_total"),
    ).not.toContain("claude-first");
  });
});
