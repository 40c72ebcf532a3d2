import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { nextRuns, parseWhen, ScheduleInputError } from "../../src/core/schedules/index.ts";

const NOW = Date.UTC(2026, 11, 6, 12, 0); // a Sunday, 12:00 UTC
const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata"];
const DAY_WORDS: Record<string, number[]> = {
  daily: [1, 2, 3, 4, 5, 6, 7],
  weekdays: [1, 2, 3, 4, 5],
  weekends: [6, 7],
  mondays: [1],
  fridays: [5],
};

describe("plain-language times", () => {
  it("reads the forms people type", () => {
    expect(parseWhen("weekdays 09:00 Europe/Berlin", "UTC", NOW)).toEqual({
      kind: "cron",
      pattern: "0 9 * * 1-5",
      tz: "Europe/Berlin",
    });
    expect(parseWhen("every 2h", "UTC", NOW)).toEqual({ kind: "every", everyMs: 7_200_000 });
    expect(parseWhen("tomorrow 9:00", "Europe/Berlin", NOW)).toEqual({
      kind: "at",
      at: Date.UTC(2026, 11, 7, 8, 0),
    });
    expect(parseWhen("2027-01-31T09:00Z", "UTC", NOW)).toEqual({
      kind: "at",
      at: Date.UTC(2027, 0, 31, 9),
    });
    expect(parseWhen("0 9 * * 1-5 UTC", "Europe/Berlin", NOW)).toEqual({
      kind: "cron",
      pattern: "0 9 * * 1-5",
      tz: "UTC",
    });
    expect(parseWhen("*/5 * * * * *", "UTC", NOW)).toMatchObject({ pattern: "*/5 * * * * *" });
  });

  it("says which part it could not read, and what it takes", () => {
    expect(() => parseWhen("whenever", "UTC", NOW)).toThrow(
      /when: "whenever" cannot be used: write a time such as/,
    );
    expect(() => parseWhen("daily 25:00", "UTC", NOW)).toThrow(
      /when: "25:00" cannot be used: give the time of day as HH:MM/,
    );
    expect(() => parseWhen("today 09:00", "UTC", NOW)).toThrow(/that time has passed today/);
    expect(() => parseWhen("daily 9:00 Mars/Base", "UTC", NOW)).toThrow(/tz: "Mars\/Base"/);
    expect(() => parseWhen("2027-13-45T99:99Z", "UTC", NOW)).toThrow(/that date does not exist/);
  });

  it("property: a day word and a time run on those days at that wall time in the zone", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(DAY_WORDS)),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.constantFrom(...ZONES),
        (word, hour, minute, zone) => {
          const clock = `${hour}:${String(minute).padStart(2, "0")}`;
          const timing = parseWhen(`${word} ${clock} ${zone}`, "UTC", NOW);
          for (const run of nextRuns(timing, NOW, 3)) {
            const local = DateTime.fromMillis(run, { zone });
            expect(DAY_WORDS[word]).toContain(local.weekday);
            // The zones here have their DST switch outside 01:00-03:59 or none, except a skipped hour.
            if (local.hour === hour) expect(local.minute).toBe(minute);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("property: any text reads as a timing or a ScheduleInputError, nothing else", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          parseWhen(text, "UTC", NOW);
        } catch (error) {
          expect(error).toBeInstanceOf(ScheduleInputError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reads 'at', am/pm and 'in <interval>'", () => {
    expect(parseWhen("mondays at 10am", "UTC", NOW)).toEqual(
      parseWhen("mondays 10:00", "UTC", NOW),
    );
    expect(parseWhen("tomorrow at 5:30 pm Europe/Berlin", "UTC", NOW)).toEqual({
      kind: "at",
      at: Date.UTC(2026, 11, 7, 16, 30),
    });
    expect(parseWhen("daily 12am", "UTC", NOW)).toMatchObject({ pattern: "0 0 * * *" });
    expect(parseWhen("daily 12pm", "UTC", NOW)).toMatchObject({ pattern: "0 12 * * *" });
    expect(parseWhen("in 1h30m", "UTC", NOW)).toEqual({ kind: "at", at: NOW + 5_400_000 });
    expect(() => parseWhen("daily 13pm", "UTC", NOW)).toThrow(/or as 9am or 5:30pm/);
    expect(() => parseWhen("in a while", "UTC", NOW)).toThrow(
      /when: "in a while" cannot be used: write how long from now/,
    );
  });

  it("property: an am/pm time is the same timing as its 24-hour clock", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(DAY_WORDS), "tomorrow"),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 59 }),
        fc.constantFrom("am", "pm", " am", " PM"),
        fc.boolean(),
        fc.constantFrom(...ZONES),
        (word, hour, minute, half, at, zone) => {
          const pm = half.trim().toLowerCase() === "pm";
          const h24 = (hour % 12) + (pm ? 12 : 0);
          const mm = String(minute).padStart(2, "0");
          const typed = `${word} ${at ? "at " : ""}${hour}:${mm}${half} ${zone}`;
          expect(parseWhen(typed, "UTC", NOW)).toEqual(
            parseWhen(`${word} ${h24}:${mm} ${zone}`, "UTC", NOW),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it("property: 'in' an interval is one run that far from now", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 48 }),
        fc.integer({ min: 1, max: 59 }),
        (d, h, m) => {
          const text = `in ${d ? `${d}d` : ""}${h ? `${h}h` : ""}${m}m`;
          const timing = parseWhen(text, "UTC", NOW);
          expect(timing).toEqual({ kind: "at", at: NOW + ((d * 24 + h) * 60 + m) * 60_000 });
          expect(nextRuns(timing, NOW, 3)).toEqual([(timing as { at: number }).at]);
        },
      ),
      { numRuns: 100 },
    );
  });
});
