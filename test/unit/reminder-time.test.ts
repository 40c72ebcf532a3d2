import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import {
  DateTimeSyntaxError,
  DurationSyntaxError,
  describeInstant,
  formatDuration,
  parseDateTime,
  parseDuration,
  ReminderTimeError,
  resolveWhen,
  UnknownTimeZoneError,
} from "../../src/tools/reminders/index.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Every spelling a person or model may write, with what it is worth: written out here, not taken from the parser. */
const SPELLINGS: ReadonlyArray<readonly [string, number]> = [
  ["s", SECOND],
  ["sec", SECOND],
  ["seconds", SECOND],
  ["m", MINUTE],
  ["min", MINUTE],
  ["minutes", MINUTE],
  ["h", HOUR],
  ["hr", HOUR],
  ["hours", HOUR],
  ["H", HOUR],
  ["d", DAY],
  ["days", DAY],
  ["w", 7 * DAY],
  ["weeks", 7 * DAY],
];

const ZONES = [
  "UTC",
  "Europe/Berlin",
  "America/New_York",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "America/Santiago",
  "Pacific/Chatham",
];

describe("durations", () => {
  it("reads back every canonical duration it writes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 * 365 * 24 * 3600 }), (seconds) => {
        const ms = seconds * SECOND;
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });

  it("adds up parts written in any spelling, order and spacing", () => {
    const part = fc.tuple(
      fc.integer({ min: 0, max: 10_000 }),
      fc.constantFrom(...SPELLINGS),
      fc.constantFrom("", " "),
    );
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("", " ", ", ", " and "),
        (parts, separator) => {
          const text = parts.map(([n, [unit], gap]) => `${n}${gap}${unit}`).join(separator);
          const total = parts.reduce((sum, [n, [, size]]) => sum + n * size, 0);
          expect(parseDuration(text)).toBe(total);
        },
      ),
    );
  });

  it("reads the examples people write", () => {
    expect(parseDuration("90m")).toBe(90 * MINUTE);
    expect(parseDuration("2h30m")).toBe(2.5 * HOUR);
    expect(parseDuration("1d")).toBe(DAY);
    expect(parseDuration("1.5h")).toBe(90 * MINUTE);
    expect(parseDuration(" 2 hours and 15 minutes ")).toBe(135 * MINUTE);
    expect(formatDuration(2.5 * HOUR)).toBe("2h30m");
  });

  it("names the wrong part and gives an example for anything it cannot read", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        try {
          const ms = parseDuration(text);
          expect(Number.isSafeInteger(ms) && ms >= 0).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(DurationSyntaxError);
          const { token, message } = error as DurationSyntaxError;
          expect(text).toContain(token);
          expect(message).toContain("2h30m");
        }
      }),
    );
  });

  it("refuses an unknown unit by quoting it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.constantFrom("x", "q", "fortnights", "mo", "months", "y", "years"),
        (n, unit) => {
          const error = catchError(() => parseDuration(`1h${n}${unit}`));
          expect(error).toBeInstanceOf(DurationSyntaxError);
          expect((error as DurationSyntaxError).token).toBe(`${n}${unit}`);
          expect((error as Error).message).toContain(`"${n}${unit}"`);
        },
      ),
    );
    expect(catchError(() => parseDuration("2 months"))?.message).toMatch(/Months and years vary/);
    expect(catchError(() => parseDuration("soon"))?.message).toBe(
      '"soon" is not a duration. Write a number and a unit (s, m, h, d or w), e.g. "90m", "2h30m" or "1d".',
    );
    expect((catchError(() => parseDuration("")) as DurationSyntaxError).message).toMatch(/empty/);
  });
});

/** A local wall-clock time, minutes precision, as `yyyy-MM-ddTHH:mm`. */
const localTime = fc
  .record({
    year: fc.integer({ min: 2000, max: 2100 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
  })
  .map(
    ({ year, month, day, hour, minute }) =>
      `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}`,
  );

describe("local date-times", () => {
  it("lands on the same wall-clock time in the zone, unless the clock skips it", () => {
    fc.assert(
      fc.property(localTime, fc.constantFrom(...ZONES), (text, zone) => {
        const parsed = parseDateTime(text, zone);
        const wall = DateTime.fromMillis(parsed.instant, { zone }).toFormat("yyyy-LL-dd'T'HH:mm");
        if (parsed.adjustment?.kind === "skipped") {
          expect(wall > text).toBe(true);
          expect(parsed.adjustment.used).toBe(wall.replace("T", " "));
        } else {
          expect(wall).toBe(text);
        }
      }),
    );
  });

  it("takes an explicit offset over the zone", () => {
    fc.assert(
      fc.property(
        localTime,
        fc.integer({ min: -12 * 60, max: 14 * 60 }),
        fc.constantFrom(...ZONES),
        (text, offset, zone) => {
          const sign = offset < 0 ? "-" : "+";
          const suffix = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
          const parsed = parseDateTime(`${text}${suffix}`, zone);
          expect(parsed.explicitOffset).toBe(true);
          expect(parsed.instant).toBe(Date.parse(`${text}:00Z`) - offset * MINUTE);
        },
      ),
    );
    expect(parseDateTime("2026-12-01T09:00Z", "Europe/Berlin").instant).toBe(
      Date.parse("2026-12-01T09:00:00Z"),
    );
  });

  it("moves a time the spring-forward skips to the same time after the jump, and says so", () => {
    const parsed = parseDateTime("2026-03-29T02:30", "Europe/Berlin");
    expect(new Date(parsed.instant).toISOString()).toBe("2026-03-29T01:30:00.000Z");
    expect(parsed.adjustment).toEqual({
      kind: "skipped",
      requested: "2026-03-29 02:30",
      used: "2026-03-29 03:30",
    });
  });

  it("takes the first of a time the fall-back shows twice", () => {
    const parsed = parseDateTime("2026-10-25T02:30", "Europe/Berlin");
    expect(new Date(parsed.instant).toISOString()).toBe("2026-10-25T00:30:00.000Z");
    expect(parsed.adjustment?.kind).toBe("repeated");
  });

  it("names the wrong part of a date-time, or says nothing is wrong, for any text", () => {
    const mutated = fc
      .tuple(localTime, fc.nat(20), fc.string({ maxLength: 3 }))
      .map(([text, at, insert]) => text.slice(0, at) + insert + text.slice(at + 1));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 30 }), mutated), (text) => {
        try {
          parseDateTime(text, "Europe/Berlin");
        } catch (error) {
          expect(error).toBeInstanceOf(DateTimeSyntaxError);
          expect(text).toContain((error as DateTimeSyntaxError).token);
          expect((error as Error).message).toMatch(/2026-12-01T09:00|e\.g\./);
        }
      }),
    );
  });

  it("explains what is missing or out of range", () => {
    expect(catchError(() => parseDateTime("2026-12-01", "UTC"))?.message).toBe(
      '"2026-12-01" has no time of day. Add one, e.g. "2026-12-01T09:00".',
    );
    expect(catchError(() => parseDateTime("9:00", "UTC"))?.message).toMatch(/has no date/);
    expect(
      (catchError(() => parseDateTime("2026-02-30T09:00", "UTC")) as DateTimeSyntaxError).token,
    ).toBe("30");
    expect(catchError(() => parseDateTime("2026-02-30T09:00", "UTC"))?.message).toMatch(
      /that month has 28 days/,
    );
    expect(
      (catchError(() => parseDateTime("2026-13-01T09:00", "UTC")) as DateTimeSyntaxError).token,
    ).toBe("13");
    expect(
      (catchError(() => parseDateTime("2026-12-01T24:00", "UTC")) as DateTimeSyntaxError).token,
    ).toBe("24");
    expect(catchError(() => parseDateTime("2026-12-01T09:00", "Mars/Olympus"))).toBeInstanceOf(
      UnknownTimeZoneError,
    );
    expect(catchError(() => parseDateTime("2026-12-01T09:00", "+02:00"))?.message).toMatch(
      /is an offset, not a time zone/,
    );
  });
});

describe("resolving when a reminder fires", () => {
  const now = Date.parse("2026-06-01T12:00:00Z");
  const rules = { defaultTimeZone: "UTC", maxHorizonMs: 365 * DAY };

  it("fires a duration after now, for every duration within the horizon", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 * 24 * 3600 }), (seconds) => {
        const resolved = resolveWhen({ in: formatDuration(seconds * SECOND) }, now, rules);
        expect(resolved.dueAt).toBe(now + seconds * SECOND);
      }),
    );
  });

  it("refuses any time beyond the horizon, saying how far it may go", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 365 * 24 * 3600 + 1, max: 50 * 365 * 24 * 3600 }),
        (seconds) => {
          const error = catchError(() => resolveWhen({ in: `${seconds}s` }, now, rules));
          expect(error).toBeInstanceOf(ReminderTimeError);
          expect((error as ReminderTimeError).reason).toBe("too_far");
          expect((error as Error).message).toContain("at most 365d ahead");
        },
      ),
    );
  });

  it("refuses a time in the past, saying what time it is", () => {
    const error = catchError(() =>
      resolveWhen({ at: "2026-06-01T13:30", timeZone: "Europe/Berlin" }, now, rules),
    );
    expect((error as ReminderTimeError).reason).toBe("past");
    expect(error?.message).toBe(
      'A reminder needs a time in the future, but Mon 2026-06-01 13:30 Europe/Berlin (UTC+02:00) = 2026-06-01 11:30 UTC is in the past (it is Mon 2026-06-01 14:00 Europe/Berlin (UTC+02:00) = 2026-06-01 12:00 UTC). Give a later time, or a duration such as in: "2h".',
    );
    expect(
      (catchError(() => resolveWhen({ in: "0m" }, now, rules)) as ReminderTimeError).reason,
    ).toBe("past");
  });

  it("reads a local time in the configured zone when none is given", () => {
    const berlin = { ...rules, defaultTimeZone: "Europe/Berlin" };
    const resolved = resolveWhen({ at: "2026-12-01T09:00" }, now, berlin);
    expect(resolved).toEqual({
      dueAt: Date.parse("2026-12-01T08:00:00Z"),
      timeZone: "Europe/Berlin",
    });
    expect(describeInstant(resolved.dueAt, resolved.timeZone)).toBe(
      "Tue 2026-12-01 09:00 Europe/Berlin (UTC+01:00) = 2026-12-01 08:00 UTC",
    );
    expect(
      resolveWhen({ at: "2026-12-01T09:00", timeZone: "america/new_york" }, now, berlin).timeZone,
    ).toBe("America/New_York");
  });

  it("asks for exactly one of at and in", () => {
    expect((catchError(() => resolveWhen({}, now, rules)) as ReminderTimeError).reason).toBe(
      "missing",
    );
    expect(
      (
        catchError(() =>
          resolveWhen({ at: "2026-12-01T09:00", in: "1h" }, now, rules),
        ) as ReminderTimeError
      ).reason,
    ).toBe("both");
  });
});

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

function catchError(run: () => unknown): Error | undefined {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  return undefined;
}
