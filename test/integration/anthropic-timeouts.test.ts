import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProviderRequest } from "../../src/core/agent/provider.ts";
import { createAnthropicProvider } from "../../src/providers/anthropic/provider.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { fallbackChain } from "../support/fallback-chain.ts";
import { failureOf } from "../support/provider.ts";

/**
 * The model's clocks (first byte, idle, the whole call) bound a Claude call
 * as they bound an OpenAI-compatible one (provider-timeouts.test.ts), over
 * the real `@anthropic-ai/sdk` against the fake Messages API, and a Claude
 * call that timed out before any text falls back to the next model.
 */

/** Long enough that a test only ends through the clock under test. */
const NEVER = 600_000;
const KEY = "sk-ant-timeouts-SECRET";

let claude: FakeAnthropic;
let openai: FakeOpenAI;
beforeAll(async () => {
  claude = await startFakeAnthropic({ apiKey: KEY });
  openai = await startFakeOpenAI();
});
afterAll(async () => {
  await claude.close();
  await openai.close();
});
afterEach(() => {
  claude.requests.length = 0;
  openai.requests.length = 0;
});

const ask = (overrides: Partial<ProviderRequest> = {}): ProviderRequest => ({
  system: "You are Switchyard, a helpful bot.",
  tools: "[]",
  messages: [{ role: "user", content: "hi" }],
  cacheKey: "telegram:1:1",
  ...overrides,
});

function provider(limits: { firstByteMs?: number; idleMs?: number; callMs?: number }) {
  const warnings: string[] = [];
  return {
    warnings,
    provider: createAnthropicProvider({
      apiKey: KEY,
      baseURL: claude.url,
      model: "claude-test",
      limits,
      logger: { warn: (message) => void warnings.push(message) },
      sleep: async () => {},
    }),
  };
}

describe("a Claude call's clocks", () => {
  it("answers a server that never sends headers once the first-byte timeout passes, without retrying", async () => {
    claude.script({ content: "never sent", delayMs: Number.POSITIVE_INFINITY });
    const { provider: p, warnings } = provider({ firstByteMs: 300, idleMs: NEVER });

    const error = await failureOf(p.complete(ask()));

    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(
      `The model did not start its reply within 300 ms, so I stopped waiting. Please try again in a moment. If this keeps happening, the model server at ${claude.url} is overloaded or down, or this model needs longer before it starts: raise SWITCHYARD_MODEL_FIRST_BYTE_MS (model.first_byte_ms).`,
    );
    expect(claude.requests).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain(KEY);
  });

  it("gives up on a stream that goes quiet mid-reply, keeping the text the person already saw", async () => {
    // message_start, content_block_start and four words, then silence.
    claude.script({
      content: "Here is the plan: first we pack, then we leave.",
      stallAfterEvents: 6,
    });
    const seen: string[] = [];

    const error = await failureOf(
      provider({ firstByteMs: NEVER, idleMs: 300 }).provider.complete(
        ask({ onText: (soFar) => seen.push(soFar) }),
      ),
    );

    expect(error.kind).toBe("timeout");
    expect(seen.at(-1)).toBe("Here is the plan: ");
    expect(error.message).toBe(
      `Here is the plan: \n\n(The model went quiet in the middle of its reply (nothing for 300 ms), so I stopped waiting. Please try again. If this keeps happening, check the model server at ${claude.url}, or raise SWITCHYARD_MODEL_IDLE_MS (model.idle_ms).)`,
    );
    expect(claude.requests).toHaveLength(1);
  });

  it("ends a call whose server sends pings forever when the call's budget runs out", async () => {
    claude.script({ content: "one two three four", stallAfterEvents: 3, pingEveryMs: 50 });

    const error = await failureOf(
      provider({ firstByteMs: NEVER, idleMs: 500, callMs: 1_500 }).provider.complete(ask()),
    );

    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(
      /^one \n\n\(The model took longer than 1\.5 s on one request, so I stopped it\. Please try again, or ask for something smaller\. \(The limit is SWITCHYARD_MODEL_CALL_MS \(model\.call_ms\)\.\)\)$/,
    );
  });

  it("falls back to the next model when Claude timed out before any text, counting reason timeout", async () => {
    const { metrics, routed } = fallbackChain({
      claudeUrl: claude.url,
      claudeKey: KEY,
      openaiUrl: openai.url,
      ownModel: "gpt-second",
      modelLines: ["first_byte_ms: 300"],
    });
    claude.script({ content: "never sent", delayMs: Number.POSITIVE_INFINITY });
    openai.script({ content: "Answered by the second model." });

    const reply = await routed.complete(ask({ model: "claude-first" }));

    expect(reply.content).toBe("Answered by the second model.");
    expect(claude.requests).toHaveLength(1);
    expect(openai.requests.map((r) => r.body.model)).toEqual(["gpt-second"]);
    expect(
      await metrics.registry.getSingleMetricAsString("switchyard_model_fallback_total"),
    ).toContain(
      'switchyard_model_fallback_total{from="claude-first",to="gpt-second",reason="timeout"} 1',
    );
  });
});
