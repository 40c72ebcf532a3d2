import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deliveryFloor } from "../../bench/streams-run.ts";

describe("the streams bench's platform floor", () => {
  it("sends a thousand answers that end together at the bot's pace, after its burst", () => {
    const ends = Array.from({ length: 1_000 }, () => 5_000);
    const floor = deliveryFloor(ends, 0, 30);
    // 30 go at once, the other 970 at 30 a second.
    expect(floor.floorWallMs).toBeCloseTo(5_000 + (970 * 1000) / 30, 0);
    expect(floor.floorFinalEditP99Ms).toBeGreaterThan(30_000);
  });

  it("costs nothing when answers end further apart than the pace", () => {
    const ends = Array.from({ length: 100 }, (_, i) => 1_000 + i * 50);
    expect(deliveryFloor(ends, 0, 30)).toEqual({
      floorWallMs: 1_000 + 99 * 50,
      floorFinalEditP99Ms: 0,
    });
  });

  it("never shows an answer before its model ends nor faster than the bucket allows", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 1_000 }),
        (ends, perSecond) => {
          const { floorWallMs } = deliveryFloor(ends, 0, perSecond);
          expect(floorWallMs).toBeGreaterThanOrEqual(Math.max(...ends));
          // Any n sends need (n - burst) / rate seconds after the first could go.
          const least = (Math.max(0, ends.length - perSecond) * 1000) / perSecond;
          expect(floorWallMs).toBeGreaterThanOrEqual(Math.min(...ends) + least - 1e-6);
        },
      ),
    );
  });
});
