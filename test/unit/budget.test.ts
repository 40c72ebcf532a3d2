import fc from "fast-check";
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { demoTools, syntheticTools } from "../../bench/demo-registry.ts";
import {
  deferredToolTokens,
  estimateTokens,
  residentToolTokens,
} from "../../src/core/budget/estimate.ts";
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
