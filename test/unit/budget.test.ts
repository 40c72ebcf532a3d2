import fc from "fast-check";
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { demoTools, syntheticTools } from "../../bench/demo-registry.ts";
import {
  deferredToolTokens,
  estimateTokens,
  residentToolTokens,
} from "../../src/core/budget/estimate.ts";
import {
  admitTurn,
  budgetAdmits,
  DEFAULT_TURN_ESTIMATE,
  EMPTY_LEDGER,
  reservedTokens,
  settleTurn,
  turnEstimate,
} from "../../src/core/budget/reservation.ts";
import { NO_USAGE } from "../../src/core/budget/usage.ts";
import { realisticProse, realisticToolNames, realisticTools } from "../fixtures/realistic-tools.ts";

// The estimate is checked against the real tokenizer on the real payloads.
const o200k = getEncoding("o200k_base");
/** o200k_base token count; text that looks like a special token is counted as text. */
const realTokens = (text: string): number => o200k.encode(text, [], []).length;

const TOLERANCE = 0.15;

function expectWithinTolerance(estimate: number, text: string, label: string): void {
  const actual = realTokens(text);
  const error = Math.abs(estimate - actual) / actual;
  expect(error, `${label}: estimated ${estimate}, o200k_base counts ${actual}`).toBeLessThanOrEqual(
    TOLERANCE,
  );
}

/** The provider's `tools` array, as the turn contract joins cached wires. */
const residentArray = (wires: readonly string[]): string => `[${wires.join(",")}]`;
/** The catalog block: one bare tool name per line. */
const catalog = (ids: readonly string[]): string => `${ids.join("\n")}\n`;
const sum = (values: readonly number[]): number => values.reduce((total, n) => total + n, 0);

describe("residentToolTokens", () => {
  it("has at least 15 realistic tools to check", () => {
    expect(realisticTools.length).toBeGreaterThanOrEqual(15);
  });

  it.each(realisticTools.map((tool) => [tool.id, tool.wire] as const))(
    "estimates the wire JSON of %s within 15%",
    (id, wire) => {
      expectWithinTolerance(residentToolTokens(wire), wire, id);
    },
  );

  it("estimates the whole resident tools array within 15%", () => {
    const array = residentArray(realisticTools.map((tool) => tool.wire));
    expectWithinTolerance(estimateTokens(array), array, "tools array");
  });

  it("estimates every demo-registry tool within 15%", () => {
    for (const tool of demoTools()) {
      expectWithinTolerance(residentToolTokens(tool.wire), tool.wire, tool.id);
    }
  });

  it("estimates the demo registry's resident array within 15%", () => {
    const array = residentArray(demoTools().map((tool) => tool.wire));
    expectWithinTolerance(estimateTokens(array), array, "demo tools array");
  });

  it("estimates a 1,000-tool synthetic registry within 15%, tool by tool and in total", () => {
    const tools = syntheticTools(1000);
    for (const tool of tools) {
      expectWithinTolerance(residentToolTokens(tool.wire), tool.wire, tool.id);
    }
    const total = sum(tools.map((tool) => residentToolTokens(tool.wire)));
    expectWithinTolerance(total, residentArray(tools.map((tool) => tool.wire)), "total");
  });
});

describe("deferredToolTokens", () => {
  it("sums to within 15% of a realistic catalog of at least 30 names", () => {
    expect(realisticToolNames.length).toBeGreaterThanOrEqual(30);
    const estimate = sum(realisticToolNames.map(deferredToolTokens));
    expectWithinTolerance(estimate, catalog(realisticToolNames), "catalog");
  });

  it("sums to within 15% of the demo registry's catalog", () => {
    const ids = demoTools().map((tool) => tool.id);
    expectWithinTolerance(sum(ids.map(deferredToolTokens)), catalog(ids), "demo catalog");
  });

  it("sums to within 15% of a 1,000-tool synthetic catalog", () => {
    const ids = syntheticTools(1000).map((tool) => tool.id);
    expectWithinTolerance(sum(ids.map(deferredToolTokens)), catalog(ids), "synthetic catalog");
  });

  it("charges an MCP tool name what o200k_base does", () => {
    // m·cp·__·github·__·create·_issue·\n
    expect(deferredToolTokens("mcp__github__create_issue")).toBe(8);
  });
});

describe("estimateTokens", () => {
  it.each(realisticProse.map((text) => [text.slice(0, 40), text] as const))(
    "estimates prose within 15%: %s...",
    (_, text) => {
      expectWithinTolerance(estimateTokens(text), text, text.slice(0, 40));
    },
  );

  it("estimates every demo tool description within 15%", () => {
    for (const tool of demoTools()) {
      expectWithinTolerance(estimateTokens(tool.description), tool.description, tool.id);
    }
  });

  it("prices a resident tool far above its deferred name", () => {
    for (const tool of realisticTools) {
      expect(residentToolTokens(tool.wire)).toBeGreaterThan(3 * deferredToolTokens(tool.id));
    }
  });

  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: "binary" }),
    fc.json(),
    fc.string({
      unit: fc.constantFrom("a", "Z", "_", "__", "/", "-", " ", "\n", '"', "{", "}", ",", ":"),
    }),
    fc.string({ unit: fc.constantFrom("mcp", "description", "tool", "é", "д", "日", "🎉", "7") }),
  );

  it("is never negative, and 0 only for the empty string", () => {
    fc.assert(
      fc.property(text, (s) => {
        const estimate = estimateTokens(s);
        expect(Number.isInteger(estimate)).toBe(true);
        expect(estimate).toBeGreaterThanOrEqual(0);
        expect(estimate === 0).toBe(s === "");
      }),
    );
  });

  it("never gets more than a token cheaper when text is added", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const whole = estimateTokens(a + b);
        expect(whole).toBeGreaterThanOrEqual(Math.max(estimateTokens(a), estimateTokens(b)) - 1);
      }),
    );
  });

  it("never costs more than its parts plus two tokens where they join", () => {
    // Pieces can merge across the join (`"}` + `,"` is `"},"`, two tokens),
    // and each part's estimate is rounded on its own.
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(estimateTokens(a + b)).toBeLessThanOrEqual(
          estimateTokens(a) + estimateTokens(b) + 2,
        );
      }),
    );
  });
});

describe("token-budget reservations", () => {
  /** Admits and settles, in any order: a message arrives, or the oldest turns in flight end. */
  const step = fc.oneof(
    fc.record({ kind: fc.constant("admit" as const) }),
    fc.record({ kind: fc.constant("settle" as const), turns: fc.integer({ min: 1, max: 4 }) }),
  );

  /**
   * Runs `steps` against one budget; each settle ends up to `turns` of the
   * turns in flight, answered as one turn that cost `cost(estimate held)`.
   * At the end every turn left in flight settles. Returns the tokens used,
   * and the most any one admitted turn reserved.
   */
  function run(
    budget: number,
    steps: readonly { kind: "admit" | "settle"; turns?: number }[],
    estimates: readonly number[],
    cost: (held: number, i: number) => number,
  ) {
    let ledger = EMPTY_LEDGER;
    let admitted = 0;
    let errors = 0;
    const settle = (count: number) => {
      const ids = [...ledger.reserved.keys()].slice(0, count);
      const held = ids.reduce((sum, id) => sum + (ledger.reserved.get(id) ?? 0), 0);
      const used = cost(held, admitted);
      errors += Math.max(0, used - held);
      ledger = settleTurn(ledger, ids, used);
    };
    steps.forEach((s, i) => {
      if (s.kind === "settle") {
        settle(s.turns ?? 1);
        return;
      }
      const estimate = estimates[i % estimates.length] ?? 1;
      const before = ledger.used + reservedTokens(ledger);
      const result = admitTurn(ledger, budget, `m${i}`, estimate);
      // Refused exactly when what is used and held has reached the budget.
      expect(result.admitted).toBe(before < budget);
      if (result.admitted) admitted += 1;
      ledger = result.ledger;
    });
    settle(ledger.reserved.size);
    return { used: ledger.used, admitted, errors };
  }

  it("never spends past the budget plus one turn's estimate when turns cost what they reserved, in any order of admits and settles", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50_000 }),
        fc.integer({ min: 1, max: 20_000 }),
        fc.array(step, { maxLength: 60 }),
        (budget, estimate, steps) => {
          const { used } = run(budget, steps, [estimate], (held) => held);
          expect(used).toBeLessThanOrEqual(budget - 1 + estimate);
        },
      ),
    );
  });

  it("overshoots by at most the last admitted estimate plus what turns cost beyond their reservations", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50_000 }),
        fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(step, { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 8 }),
        (budget, estimates, steps, costs) => {
          const { used, errors } = run(
            budget,
            steps,
            estimates,
            (_, i) => costs[i % costs.length] ?? 0,
          );
          expect(used).toBeLessThanOrEqual(budget - 1 + Math.max(...estimates) + errors);
        },
      ),
    );
  });

  it("admits a message already holding a reservation again, reserving nothing more", () => {
    const once = admitTurn(EMPTY_LEDGER, 1_500, "m1", 1_000).ledger;
    const full = admitTurn(once, 1_500, "m2", 1_000).ledger;
    expect(admitTurn(full, 1_500, "m3", 1_000).admitted).toBe(false);
    expect(admitTurn(full, 1_500, "m1", 1_000)).toEqual({ admitted: true, ledger: full });
    expect(budgetAdmits({ used: 499, reserved: 1_000 }, 1_500)).toBe(true);
  });

  it("estimates a turn by the person's average today, else this month's, else the configured default", () => {
    const counts = (prompt: number, completion: number, turns: number) => ({
      ...NO_USAGE,
      prompt,
      completion,
      turns,
    });
    const month = counts(40_000, 2_000, 7);
    expect(turnEstimate({ today: counts(9_000, 1_000, 2), month }, 8_000)).toBe(5_000);
    expect(turnEstimate({ today: NO_USAGE, month }, 8_000)).toBe(6_000);
    expect(turnEstimate({ today: NO_USAGE, month: NO_USAGE }, 3_000)).toBe(3_000);
    expect(turnEstimate({ today: NO_USAGE, month: NO_USAGE })).toBe(DEFAULT_TURN_ESTIMATE);
    // A turn the provider reported as free still reserves something.
    expect(turnEstimate({ today: counts(0, 0, 3), month }, 8_000)).toBe(1);
  });
});
