import { describe, expect, it } from "vitest";
import { PromptCache } from "../../src/testing/fakes/anthropic.ts";

/**
 * The fake Messages API's prefix-cache simulator, which the Claude tests and
 * the prompt-cache bench read cache figures from: what it caches has to
 * depend on where the breakpoints are and on the minimum cacheable length,
 * as Anthropic documents, or those figures say nothing.
 */

const mark = { type: "ephemeral" } as const;
/** A text block of about `tokens` tokens (the simulator counts a quarter of the JSON). */
const text = (tokens: number, tag = "x") => ({ type: "text", text: tag.repeat(tokens * 4) });

function request(
  blocks: Record<string, unknown>[],
  options: { model?: string; system?: Record<string, unknown>[] } = {},
) {
  return {
    model: options.model ?? "claude-test",
    max_tokens: 100,
    ...(options.system ? { system: options.system } : {}),
    messages: [{ role: "user", content: blocks }],
  };
}

describe("the fake's prompt cache", () => {
  it("writes a prefix only from the minimum cacheable length, and reads it back on the next call", () => {
    const small = request([{ ...text(100), cache_control: mark }]);
    const short = new PromptCache(1024, () => 0);
    expect(short.use(small)).toMatchObject({ cache_creation_input_tokens: 0 });
    expect(short.use(small)).toMatchObject({ cache_read_input_tokens: 0 });

    const enough = new PromptCache(50, () => 0);
    const first = enough.use(small);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(100);
    expect(enough.use(small)).toMatchObject({
      cache_read_input_tokens: first.cache_creation_input_tokens,
      cache_creation_input_tokens: 0,
    });
  });

  it("caches nothing without a breakpoint, and reads only up to where the breakpoint was", () => {
    const cache = new PromptCache(50, () => 0);
    const bare = request([text(200, "a"), text(200, "b")]);
    cache.use(bare);
    expect(cache.use(bare).cache_read_input_tokens).toBe(0);

    // A breakpoint on the first block: the second call reads that block, not the one after it.
    const marked = request([{ ...text(200, "a"), cache_control: mark }, text(200, "b")]);
    const first = cache.use(marked);
    const again = cache.use(marked);
    expect(again.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(again.input_tokens).toBeGreaterThanOrEqual(200);
  });

  it("finds a cached prefix up to 20 blocks before a later breakpoint, and not further", () => {
    const head = { ...text(200, "h"), cache_control: mark };
    // The next call's head carries no breakpoint of its own: only the later one can find it.
    const plainHead = text(200, "h");
    /** `n` short blocks, the last with a breakpoint. */
    const withMark = (n: number): Record<string, unknown>[] =>
      Array.from({ length: n }, (_, i) => ({
        type: "text",
        text: `turn ${i}`,
        ...(i === n - 1 ? { cache_control: mark } : {}),
      }));

    const near = new PromptCache(50, () => 0);
    const written = near.use(request([head])).cache_creation_input_tokens;
    // The head's entry sits 20 blocks before the new breakpoint: found.
    expect(near.use(request([plainHead, ...withMark(20)])).cache_read_input_tokens).toBe(written);

    const far = new PromptCache(50, () => 0);
    far.use(request([head]));
    // 21 blocks before it: out of the lookback, so nothing is read.
    expect(far.use(request([plainHead, ...withMark(21)])).cache_read_input_tokens).toBe(0);
  });

  it("keeps entries per model and for their ttl", () => {
    let now = 0;
    const cache = new PromptCache(50, () => now);
    const five = request([{ ...text(200), cache_control: mark }]);
    const hour = request([{ ...text(200, "y"), cache_control: { type: "ephemeral", ttl: "1h" } }]);
    cache.use(five);
    cache.use(hour);
    expect(cache.use(five).cache_read_input_tokens).toBeGreaterThan(0);
    expect(cache.use({ ...five, model: "claude-other" }).cache_read_input_tokens).toBe(0);

    now += 6 * 60_000;
    expect(cache.use(five).cache_read_input_tokens).toBe(0);
    expect(cache.use(hour).cache_read_input_tokens).toBeGreaterThan(0);
  });
});
