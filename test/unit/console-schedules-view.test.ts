import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Schedule, Timing } from "../../src/core/schedules/index.ts";
import { nextRunOf } from "../../src/ops/console/schedules-view.ts";
import type { ScheduleState } from "../../src/store/schedule-store.ts";

const schedule = (timing: Timing, until?: number): Schedule => ({
  id: "s1",
  target: { platform: "slack", workspace: "T1", channel: "C1", conversation: "C1", kind: "group" },
  prompt: "Say tick.",
  timing,
  owner: { user: "U1" },
  ...(until !== undefined ? { until } : {}),
  catchUp: "one",
  origin: "config",
});

const state = (
  timing: Timing,
  covered: number,
  extra: Partial<ScheduleState> = {},
): ScheduleState => ({
  schedule: schedule(timing),
  covered,
  coveredRaw: String(covered),
  runs: 0,
  ...extra,
});

const T0 = Date.UTC(2026, 11, 7, 8, 0, 0);

describe("the next run the console shows", () => {
  it("is on an interval's grid through the latest tick handled, and after now", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 60_000, max: 86_400_000 }),
        fc.integer({ min: 0, max: 10 * 86_400_000 }),
        (everyMs, since) => {
          const now = T0 + since;
          const next = nextRunOf(state({ kind: "every", everyMs }, T0), now) as number;
          expect(next).toBeGreaterThan(now);
          expect(next - everyMs).toBeLessThanOrEqual(now);
          expect((next - T0) % everyMs).toBe(0);
        },
      ),
    );
  });

  it("is the pattern's next time in its zone", () => {
    const timing: Timing = { kind: "cron", pattern: "0 9 * * 1", tz: "Europe/Berlin" };
    // Monday 7 December 2026, 08:00 UTC: 09:00 in Berlin is right now, so the next is a week on.
    expect(nextRunOf(state(timing, T0 - 1), T0 - 1)).toBe(T0);
    expect(nextRunOf(state(timing, T0), T0)).toBe(T0 + 7 * 86_400_000);
  });

  it("is none while paused, once over, or past its until", () => {
    const every: Timing = { kind: "every", everyMs: 3_600_000 };
    expect(nextRunOf(state(every, T0, { paused: { reason: "x", at: T0 } }), T0)).toBeUndefined();
    expect(nextRunOf(state(every, T0, { ended: "max_runs" }), T0)).toBeUndefined();
    const ending = { ...state(every, T0), schedule: schedule(every, T0 + 1_800_000) };
    expect(nextRunOf(ending, T0)).toBeUndefined();
    expect(nextRunOf(state({ kind: "at", at: T0 - 1 }, T0), T0)).toBeUndefined();
  });
});
