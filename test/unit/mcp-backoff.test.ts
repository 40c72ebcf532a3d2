import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../src/tools/mcp/index.ts";

const policy = fc
  .tuple(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 600_000 }))
  .map(([baseMs, extra]) => ({ baseMs, maxMs: baseMs + extra }));
const attempt = fc.integer({ min: 1, max: 1_000 });
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe("reconnect backoff", () => {
  it("doubles from the base up to the maximum when the jitter is at its top", () => {
    const delays = [1, 2, 3, 4, 5, 6].map((n) =>
      backoffDelay(n, { baseMs: 1_000, maxMs: 10_000 }, () => 1),
    );
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it("waits between half and all of the doubled delay, never more than the maximum", () => {
    fc.assert(
      fc.property(policy, attempt, random, (p, n, r) => {
        const ceiling = Math.min(p.maxMs, p.baseMs * 2 ** (n - 1));
        const delay = backoffDelay(n, p, () => r);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(delay).toBeLessThanOrEqual(Math.min(ceiling, p.maxMs));
      }),
    );
  });

  it("never waits less after more failures, for the same jitter", () => {
    fc.assert(
      fc.property(policy, attempt, random, (p, n, r) => {
        expect(backoffDelay(n + 1, p, () => r)).toBeGreaterThanOrEqual(backoffDelay(n, p, () => r));
      }),
    );
  });
});
