import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BackPressure, strainOf } from "../../src/queue/back-pressure.ts";

describe("back pressure", () => {
  it("is strained exactly when the event-loop delay or the heap is over its limit, a limit of 0 never", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 5_000, noNaN: true }),
        fc.double({ min: 0, max: 8_000, noNaN: true }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 8_000 }),
        (delay, heap, maxDelay, maxHeap) => {
          const sample = { eventLoopDelayP99Ms: delay, heapUsedMb: heap, heapLimitMb: 8_192 };
          const strain = strainOf(sample, { maxEventLoopDelayMs: maxDelay, maxHeapMb: maxHeap });
          const over = (maxDelay > 0 && delay > maxDelay) || (maxHeap > 0 && heap > maxHeap);
          expect(strain !== undefined).toBe(over);
        },
      ),
    );
  });

  it("says which limit is crossed, and takes 80% of the heap's limit when none is set", () => {
    const limits = { maxEventLoopDelayMs: 200 };
    expect(
      strainOf({ eventLoopDelayP99Ms: 350, heapUsedMb: 100, heapLimitMb: 4_096 }, limits),
    ).toBe("event-loop delay p99 350 ms is over 200 ms");
    expect(
      strainOf({ eventLoopDelayP99Ms: 10, heapUsedMb: 3_300, heapLimitMb: 4_096 }, limits),
    ).toBe("heap in use 3300 MB is over 3276 MB");
    expect(
      strainOf({ eventLoopDelayP99Ms: 10, heapUsedMb: 3_200, heapLimitMb: 4_096 }, limits),
    ).toBeUndefined();
  });

  it("reports a blocked event loop", async () => {
    const changes: (string | undefined)[] = [];
    const pressure = new BackPressure({ maxEventLoopDelayMs: 30, maxHeapMb: 0 }, (strain) =>
      changes.push(strain),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The loop is held for 150 ms, as a turn parsing something huge on the main thread would.
      const until = Date.now() + 150;
      while (Date.now() < until) {}
      // The delay is recorded once the loop turns again.
      await new Promise((resolve) => setTimeout(resolve, 20));
      pressure.look();
      expect(changes[0]).toMatch(/^event-loop delay p99 \d+ ms is over 30 ms$/);
      expect(pressure.strain).toBe(changes[0]);
    } finally {
      pressure.close();
    }
  });

  it("reports a change of state once: strained, then recovered", () => {
    const samples = [400, 500, 20, 30, 300].map((delay) => ({
      eventLoopDelayP99Ms: delay,
      heapUsedMb: 100,
      heapLimitMb: 4_096,
    }));
    const changes: (string | undefined)[] = [];
    const pressure = new BackPressure(
      { maxEventLoopDelayMs: 200 },
      (strain) => changes.push(strain),
      60_000,
      () => samples.shift() as (typeof samples)[number],
    );
    try {
      for (let i = 0; i < 5; i++) pressure.look();
      expect(changes).toEqual([
        "event-loop delay p99 400 ms is over 200 ms",
        undefined,
        "event-loop delay p99 300 ms is over 200 ms",
      ]);
    } finally {
      pressure.close();
    }
  });
});
