import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RepeatedWarnings } from "../../src/observability/repeated-warnings.ts";

interface Line {
  message: string;
  fields: Record<string, unknown>;
}

function recorder(): { lines: Line[]; logger: { warn(m: string, f?: object): void } } {
  const lines: Line[] = [];
  return {
    lines,
    logger: { warn: (message, fields = {}) => lines.push({ message, fields: { ...fields } }) },
  };
}

describe("repeated warnings", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("logs a flood of the same error as a few lines that count every occurrence", () => {
    const { lines, logger } = recorder();
    const warnings = new RepeatedWarnings(logger, { now: Date.now });
    // 3,400 a second for 23 s, as BullMQ's worker emits while Redis answers OOM.
    for (let i = 0; i < 23 * 3_400; i++) {
      warnings.warn("worker error", { error: `OOM command not allowed (used ${i} bytes)` });
      if (i % 34 === 0) vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(120_000);
    expect(lines.length).toBeLessThanOrEqual(8);
    const counted = lines.reduce((sum, l) => sum + Number(l.fields.repeated ?? 1), 0);
    expect(counted).toBe(23 * 3_400);
    expect(lines[0]?.fields.repeated).toBeUndefined();
    expect(lines.at(-1)?.fields.repeated).toBeGreaterThan(1);
  });

  it("logs different errors each on their own", () => {
    const { lines, logger } = recorder();
    const warnings = new RepeatedWarnings(logger, { now: Date.now });
    warnings.warn("worker error", { error: "OOM" });
    warnings.warn("worker error", { error: "READONLY" });
    warnings.warn("reminder worker error", { error: "OOM" });
    expect(lines.map((l) => `${l.message}: ${l.fields.error}`)).toEqual([
      "worker error: OOM",
      "worker error: READONLY",
      "reminder worker error: OOM",
    ]);
  });

  it("starts over after a calm spell, so the next incident's first line is at once", () => {
    const { lines, logger } = recorder();
    const warnings = new RepeatedWarnings(logger, { now: Date.now, maxQuietMs: 1_000 });
    for (let i = 0; i < 50; i++) warnings.warn("worker error", { error: "OOM" });
    vi.advanceTimersByTime(10_000);
    const before = lines.length;
    warnings.warn("worker error", { error: "OOM" });
    expect(lines.length).toBe(before + 1);
    expect(lines.at(-1)?.fields.repeated).toBeUndefined();
  });

  it("accounts for every occurrence, whatever their timing", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.constantFrom("a", "b")), {
          maxLength: 300,
        }),
        (events) => {
          vi.setSystemTime(0);
          const { lines, logger } = recorder();
          const warnings = new RepeatedWarnings(logger, { now: Date.now, maxQuietMs: 8_000 });
          for (const [gap, error] of events) {
            vi.advanceTimersByTime(gap);
            warnings.warn("e", { error });
          }
          vi.advanceTimersByTime(100_000);
          for (const error of ["a", "b"]) {
            const sent = events.filter(([, e]) => e === error).length;
            const logged = lines
              .filter((l) => l.fields.error === error)
              .reduce((sum, l) => sum + Number(l.fields.repeated ?? 1), 0);
            expect(logged).toBe(sent);
          }
        },
      ),
    );
  });
});
