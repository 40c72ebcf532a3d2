import { describe, expect, it } from "vitest";
import { addUsage, ZERO_USAGE } from "../../src/core/agent/messages.ts";
import { costMicros } from "../../src/core/budget/usage.ts";
import { parseConfig } from "../../src/platforms/config.ts";

describe("cache writes cost what Anthropic charges for them", () => {
  it("counts written tokens at cache_write, else 1.25 times input, and sums them across steps", () => {
    const turn = addUsage(
      { promptTokens: 10_000, cachedTokens: 0, completionTokens: 100, cacheWriteTokens: 9_000 },
      { promptTokens: 10_200, cachedTokens: 9_000, completionTokens: 50, cacheWriteTokens: 150 },
    );
    expect(turn).toEqual({
      promptTokens: 20_200,
      cachedTokens: 9_000,
      completionTokens: 150,
      cacheWriteTokens: 9_150,
    });
    const price = { input: 3, cached: 0.3, output: 15 };
    // 2,050 plain input x 3 + 9,000 read x 0.3 + 9,150 written x 3.75 + 150 out x 15.
    expect(costMicros(turn, price)).toBe(
      Math.round(2_050 * 3 + 9_000 * 0.3 + 9_150 * 3.75 + 150 * 15),
    );
    expect(costMicros(turn, { ...price, cacheWrite: 6 })).toBe(
      Math.round(2_050 * 3 + 9_000 * 0.3 + 9_150 * 6 + 150 * 15),
    );
    // A provider that does not charge for writes reports none: the price is what it was.
    expect(addUsage(ZERO_USAGE, ZERO_USAGE)).toEqual(ZERO_USAGE);
    expect(costMicros({ promptTokens: 1_000, cachedTokens: 500, completionTokens: 0 }, price)).toBe(
      1_650,
    );
  });

  it("reads cache_write: in a model's price", () => {
    const config = parseConfig(
      "models:\n  list:\n    - name: claude\n      provider: anthropic\n      price: { input: 3, cached: 0.3, output: 15, cache_write: 3.75 }\n",
      "m.yaml",
    );
    expect(config.models.list[0]?.price).toEqual({
      input: 3,
      cached: 0.3,
      output: 15,
      cacheWrite: 3.75,
    });
  });
});
