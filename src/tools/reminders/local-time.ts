import { DateTime, FixedOffsetZone, IANAZone, type Zone } from "luxon";
import { DateTimeSyntaxError, UnknownTimeZoneError } from "./errors.ts";

/**
 * What happened to a local time that the clock skips or shows twice on that
 * day (a daylight-saving change), so the answer can say so.
 */
export type LocalTimeAdjustment =
  /** The clock jumps over it (spring forward): the reminder moves forward by the gap. */
  | { readonly kind: "skipped"; readonly requested: string; readonly used: string }
  /** The clock shows it twice (fall back): the first of the two is used. */
  | { readonly kind: "repeated"; readonly requested: string; readonly used: string };

export interface ResolvedDateTime {
  /** Milliseconds since the epoch. */
  readonly instant: number;
  /** Set when the time had an explicit offset (`Z`, `+02:00`); the zone then only formats it. */
  readonly explicitOffset: boolean;
  readonly adjustment?: LocalTimeAdjustment;
}

const EXAMPLE =
  'Write a date and a time, e.g. "2026-12-01T09:00" (read in time_zone) or "2026-12-01T09:00+01:00".';

/** ISO 8601 date-time, minutes required, seconds and offset optional; `T` or a space between. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * The zone's canonical name (`europe/berlin` -> `Europe/Berlin`).
 *
 * @throws UnknownTimeZoneError when it is not an IANA zone.
 */
export function canonicalTimeZone(name: string): string {
  const trimmed = name.trim();
  if (!IANAZone.isValidZone(trimmed)) throw new UnknownTimeZoneError(name);
  return new Intl.DateTimeFormat("en", { timeZone: trimmed }).resolvedOptions().timeZone;
}

/**
 * Reads an ISO 8601 date and time. Without an offset it is a wall-clock time
 * in `timeZone`; a time the clock skips that day (2026-03-29T02:30 in
 * Europe/Berlin) is moved forward by the gap (to 03:30), and a time the
 * clock shows twice (2026-10-25T02:30 there) is the first of the two, as
 * calendar apps do (RFC 5545). Either way the result says so.
 *
 * @throws DateTimeSyntaxError naming the part that is wrong, with an example.
 */
export function parseDateTime(input: string, timeZone: string): ResolvedDateTime {
  const text = input.trim();
  const match = DATE_TIME.exec(text);
  if (!match) throw notADateTime(input, text);
  const [, y, mo, d, h, mi, s, frac, offset] = match;
  const fields = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
    millisecond: Number((frac ?? "").padEnd(3, "0")),
  };
  checkRanges(input, fields, { month: mo, day: d, hour: h, minute: mi, second: s });
  if (offset !== undefined) {
    const minutes = offsetMinutes(offset);
    if (!(Math.abs(minutes) <= 18 * 60)) {
      throw new DateTimeSyntaxError(
        input,
        offset,
        `The offset ${JSON.stringify(offset)} in ${JSON.stringify(text)} is not a UTC offset (they run from -18:00 to +18:00). ${EXAMPLE}`,
      );
    }
    const instant = build(fields, FixedOffsetZone.instance(minutes)).toMillis();
    return { instant, explicitOffset: true };
  }
  const zone = canonicalTimeZone(timeZone);
  const local = build(fields, IANAZone.create(zone));
  const requested = wallClock(fields);
  const used = local.toFormat("yyyy-LL-dd'T'HH:mm:ss");
  if (used !== requested) {
    return {
      instant: local.toMillis(),
      explicitOffset: false,
      adjustment: {
        kind: "skipped",
        requested: shortWallClock(requested),
        used: shortWallClock(used),
      },
    };
  }
  const candidates = local.getPossibleOffsets().map((dt) => dt.toMillis());
  if (candidates.length > 1) {
    const first = Math.min(...candidates);
    const earlier = DateTime.fromMillis(first, { zone });
    return {
      instant: first,
      explicitOffset: false,
      adjustment: {
        kind: "repeated",
        requested: shortWallClock(requested),
        used: `${shortWallClock(requested)} UTC${earlier.toFormat("ZZ")}`,
      },
    };
  }
  return { instant: local.toMillis(), explicitOffset: false };
}

/** `Z` -> 0, `+0530` / `+05:30` -> 330, `-03` -> -180; NaN for minutes past 59. */
function offsetMinutes(offset: string): number {
  if (/^z$/i.test(offset)) return 0;
  const digits = offset.slice(1).replace(":", "");
  const mm = Number(digits.slice(2) || 0);
  if (mm > 59) return Number.NaN;
  const minutes = Number(digits.slice(0, 2)) * 60 + mm;
  return offset.startsWith("-") ? -minutes : minutes;
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

function build(fields: Fields, zone: Zone): DateTime {
  return DateTime.fromObject(fields, { zone });
}

function checkRanges(
  input: string,
  f: Fields,
  raw: {
    month?: string;
    day?: string;
    hour?: string;
    minute?: string;
    second?: string | undefined;
  },
): void {
  const fail = (token: string | undefined, what: string): never => {
    throw new DateTimeSyntaxError(
      input,
      token ?? "",
      `${JSON.stringify(token)} in ${JSON.stringify(input.trim())} is not a valid ${what}. ${EXAMPLE}`,
    );
  };
  if (f.month < 1 || f.month > 12) fail(raw.month, "month (01 to 12)");
  const days = DateTime.utc(f.year, f.month).daysInMonth ?? 31;
  if (f.day < 1 || f.day > days) fail(raw.day, `day (that month has ${days} days)`);
  if (f.hour > 23) fail(raw.hour, "hour (00 to 23)");
  if (f.minute > 59) fail(raw.minute, "minute (00 to 59)");
  if (f.second > 59) fail(raw.second, "second (00 to 59)");
}

function wallClock(f: Fields): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${String(f.year).padStart(4, "0")}-${two(f.month)}-${two(f.day)}T${two(f.hour)}:${two(f.minute)}:${two(f.second)}`;
}

/** `2026-03-29T02:30:00` -> `2026-03-29 02:30` (seconds kept when they are not zero). */
function shortWallClock(text: string): string {
  return text.replace("T", " ").replace(/:00$/, "");
}

function notADateTime(input: string, text: string): DateTimeSyntaxError {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    return new DateTimeSyntaxError(
      input,
      text,
      `${JSON.stringify(text)} has no time of day. Add one, e.g. "${text}T09:00".`,
    );
  }
  if (/^\d{1,2}:\d{2}(:\d{2})?$/.test(text)) {
    return new DateTimeSyntaxError(
      input,
      text,
      `${JSON.stringify(text)} has no date. Add one, e.g. "2026-12-01T${text.padStart(5, "0")}", or use in: with a duration such as "2h".`,
    );
  }
  if (/\[[^\]]*\]$/.test(text)) {
    const token = text.slice(text.lastIndexOf("["));
    return new DateTimeSyntaxError(
      input,
      token,
      `${JSON.stringify(token)} in ${JSON.stringify(text)} is a zone suffix, which is not read here. Pass the zone as time_zone instead. ${EXAMPLE}`,
    );
  }
  return new DateTimeSyntaxError(
    input,
    text,
    `${JSON.stringify(text)} is not a date and time I can read. ${EXAMPLE}`,
  );
}
