import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import {
  cronTiming,
  describeTiming,
  nextRuns,
  parseEvery,
  ScheduleInputError,
  ticksBetween,
} from "../../src/core/schedules/index.ts";

/** Zones with DST rules of every shape: northern and southern, 1 h, 30 min (Lord Howe), odd offsets (Chatham, St John's). */
const ZONES = [
  "UTC",
  "Europe/Berlin",
  "Europe/London",
  "America/New_York",
  "America/St_Johns",
  "America/Santiago",
  "Australia/Sydney",
  "Australia/Lord_Howe",
  "Pacific/Chatham",
  "Asia/Kolkata",
] as const;

const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2029, 0, 1);

/**
 * Where a daily pattern's `hour:minute` falls on a local day: every instant
 * with that wall time (two in a fall-back's repeated hour), or, when a
 * spring-forward skips it, the shifted time luxon (and reminders) read it as.
 */
function wallTimes(zone: string, day: DateTime, hour: number, minute: number): number[] {
  const base = DateTime.fromObject(
    { year: day.year, month: day.month, day: day.day, hour, minute },
    { zone },
  ).toMillis();
  const found = [-3_600_000, -1_800_000, 0, 1_800_000, 3_600_000]
    .map((shift) => base + shift)
    .filter((t) => {
      const local = DateTime.fromMillis(t, { zone });
      return local.hasSame(day, "day") && local.hour === hour && local.minute === minute;
    });
  return found.length > 0 ? [...new Set(found)].sort((a, b) => a - b) : [base];
}

/** Whether `hour:minute` is a wall time the zone has on that local day (a spring-forward skips some). */
function existsOn(zone: string, day: DateTime, hour: number, minute: number): boolean {
  const local = DateTime.fromObject(
    { year: day.year, month: day.month, day: day.day, hour, minute },
    { zone },
  );
  return local.hour === hour && local.minute === minute;
}

describe("cron timings across time zones and DST transitions", () => {
  it("runs a daily pattern once a local day, after the last run, at the pattern's wall time", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: FROM, max: TO }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 23 }),
        (zone, start, minute, hour) => {
          const timing = cronTiming(`${minute} ${hour} * * *`, zone);
          const runs = nextRuns(timing, start, 8);
          expect(runs).toHaveLength(8);
          let previous = start;
          let previousDay: DateTime | undefined;
          for (const run of runs) {
            expect(run).toBeGreaterThan(previous);
            const local = DateTime.fromMillis(run, { zone });
            // A skipped wall time moves forward within the day, never to the next one.
            const day =
              local.hour < hour ? local.minus({ days: 1 }).startOf("day") : local.startOf("day");
            const expected = wallTimes(zone, day, hour, minute);
            // The first of a repeated hour's two instants, or the only one.
            expect(run).toBe(expected[0]);
            if (previousDay !== undefined) {
              // Every local day runs, but one where the wall time does not exist at all: Lord
              // Howe's 30-minute spring-forward skips 02:00-02:29, and BullMQ's cron parser
              // (whose ticks these are) finds no 02:00 that day rather than shifting it.
              for (
                let gap = previousDay.plus({ days: 1 });
                gap < day;
                gap = gap.plus({ days: 1 })
              ) {
                expect(existsOn(zone, gap, hour, minute)).toBe(false);
              }
              expect(day > previousDay).toBe(true);
            }
            previous = run;
            previousDay = day;
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("skips a daily 02:00 on Lord Howe's 30-minute spring-forward day, as BullMQ's ticks do", () => {
    const zone = "Australia/Lord_Howe";
    // 2026-10-04: clocks go from 02:00 to 02:30, so that day has no 02:00.
    const start = DateTime.fromISO("2026-10-02T12:00", { zone }).toMillis();
    const runs = nextRuns(cronTiming("0 2 * * *", zone), start, 3).map((run) =>
      DateTime.fromMillis(run, { zone }).toFormat("yyyy-MM-dd HH:mm"),
    );
    expect(runs).toEqual(["2026-10-03 02:00", "2026-10-05 02:00", "2026-10-06 02:00"]);
  });

  it("counts the ticks of a span exactly as walking nextRuns does", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: FROM, max: TO }),
        fc.integer({ min: 0, max: 86_400_000 }),
        // Each pattern with how many of its ticks a walk needs to pass the longest span (a day, 25
        // hours on a fall-back day): a cron tick in a zone costs milliseconds, so no walk goes further.
        fc.constantFrom(
          ["0 * * * *", 27],
          ["0 */6 * * *", 6],
          ["30 2 * * *", 3],
          ["0 9 * * 1-5", 4],
        ),
        (zone, after, span, [pattern, enough]) => {
          const timing = cronTiming(pattern, zone);
          const all = nextRuns(timing, after, enough);
          // The walk went past the span, so it holds every tick in it.
          expect(all.at(-1)).toBeGreaterThan(after + span);
          const walked = all.filter((t) => t <= after + span);
          const counted = ticksBetween(timing, after, after + span);
          expect(counted.count).toBe(walked.length);
          expect(counted.latest).toBe(walked.at(-1));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("interval and single-time timings", () => {
  it("reads intervals as people write them", () => {
    expect(parseEvery("every 2h")).toBe(7_200_000);
    expect(parseEvery("1h30m")).toBe(5_400_000);
    expect(parseEvery("45s")).toBe(45_000);
    expect(describeTiming({ kind: "every", everyMs: 5_400_000 })).toBe("every 1h30m");
  });

  it("counts an interval's ticks on the grid through the job's tick", () => {
    const timing = { kind: "every" as const, everyMs: 1_000 };
    expect(ticksBetween(timing, 9_999, 13_500, 10_000)).toEqual({ count: 4, latest: 13_000 });
    expect(ticksBetween(timing, 10_000, 10_999, 10_000)).toEqual({ count: 0, latest: undefined });
  });

  it("has one run for a single time, none once it has passed", () => {
    const timing = { kind: "at" as const, at: 5_000 };
    expect(nextRuns(timing, 1_000, 3)).toEqual([5_000]);
    expect(nextRuns(timing, 5_000, 3)).toEqual([]);
  });
});

describe("timing errors", () => {
  it("names the interval and how to write one", () => {
    expect(() => parseEvery("2 hours")).toThrow(
      'every: "2 hours" cannot be used: write an interval of whole numbers with units s, m, h or d, such as "every 2h", "30m" or "1h30m".',
    );
    expect(() => parseEvery("0s")).toThrow(ScheduleInputError);
  });

  it("names a pattern with the wrong number of fields", () => {
    expect(() => cronTiming("0 9 * *")).toThrow(
      /cron: "0 9 \* \*" cannot be used: write five fields .* this has 4/,
    );
  });

  it("names a field out of range", () => {
    expect(() => cronTiming("0 25 * * *")).toThrow(
      /cron: "0 25 \* \* \*" cannot be used: .*0 9 \* \* 1-5/,
    );
  });

  it("names a zone that is not one", () => {
    expect(() => cronTiming("0 9 * * *", "Mars/Olympus")).toThrow(
      'tz: "Mars/Olympus" cannot be used: name an IANA time zone such as Europe/Berlin, America/New_York or UTC.',
    );
  });
});
