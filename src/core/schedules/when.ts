import { DateTime } from "luxon";
import { ScheduleInputError } from "./errors.ts";
import { canonicalZone, cronTiming, parseEvery, type Timing } from "./timing.ts";

/** Day words and the cron day-of-week field they stand for (0 = Sunday). */
const DAYS: Readonly<Record<string, string>> = {
  daily: "*",
  "every day": "*",
  weekdays: "1-5",
  weekends: "0,6",
  mondays: "1",
  tuesdays: "2",
  wednesdays: "3",
  thursdays: "4",
  fridays: "5",
  saturdays: "6",
  sundays: "0",
};

const HINT =
  'write a time such as "weekdays 09:00 Europe/Berlin", "daily 18:30", "mondays at 10am", "every 2h", "in 30m", "tomorrow 9:00", "2027-01-31T09:00Z" or a cron pattern such as "0 9 * * 1-5"';

/**
 * A plain-language time, as people type it in `/schedule add` and the model
 * writes it for `schedule_task`, turned into a {@link Timing}:
 *
 * - `weekdays 09:00 Europe/Berlin`, `daily 18:30`, `mondays 7:05 UTC`
 *   (also `weekends`, `every day`, any day name in the plural): a cron pattern;
 * - `every 2h`, `every 30m`: an interval;
 * - `today 17:00`, `tomorrow 9:00 America/New_York`, `in 30m`, `2027-01-31T09:00Z`: one time;
 * - five or six cron fields, optionally followed by a zone.
 *
 * A time of day may follow `at` and take `am`/`pm` (`mondays at 10am`,
 * `tomorrow at 5:30 pm`). A zone left out is `zone`. `now` is when "today" and "tomorrow" are read.
 *
 * @throws ScheduleInputError naming what it could not read and the forms it takes
 * @example
 * parseWhen("weekdays 09:00 Europe/Berlin", "UTC", now);
 * // { kind: "cron", pattern: "0 9 * * 1-5", tz: "Europe/Berlin" }
 */
export function parseWhen(text: string, zone: string, now: number): Timing {
  const input = text
    .trim()
    .replace(/\s+/g, " ")
    .replace(/(\d) (am|pm)\b/gi, "$1$2");
  const lower = input.toLowerCase();
  if (lower.startsWith("every ") && !lower.startsWith("every day")) {
    return { kind: "every", everyMs: parseEvery(input) };
  }
  if (lower.startsWith("in ")) return { kind: "at", at: now + inInterval(input, text) };
  const iso = /^\d{4}-\d{2}-\d{2}t\d{1,2}:\d{2}(:\d{2})?(\.\d+)?(z|[+-]\d{2}:?\d{2})$/i.exec(input);
  if (iso) {
    const at = Date.parse(input);
    if (Number.isFinite(at)) return { kind: "at", at };
    throw new ScheduleInputError(
      "when",
      text,
      "that date does not exist; write it as 2027-01-31T09:00Z",
    );
  }
  const fields = input.split(" ");
  if (/^[\d*]/.test(input) && fields.length >= 5) {
    // Six fields when the sixth reads as a day-of-week field, not a zone ("UTC" is no day).
    const count = fields.length >= 6 && isCronField(fields[5] as string) ? 6 : 5;
    const rest = fields.slice(count).join(" ");
    return cronTiming(fields.slice(0, count).join(" "), rest === "" ? zone : rest);
  }
  const day = Object.keys(DAYS)
    .sort((a, b) => b.length - a.length)
    .find((word) => lower === word || lower.startsWith(`${word} `));
  const relative = /^(today|tomorrow) /.exec(lower)?.[1];
  const head = day ?? relative;
  if (head === undefined) throw new ScheduleInputError("when", text, HINT);
  const [clock, ...zoneWords] = input.slice(head.length).trim().replace(/^at /i, "").split(" ");
  const time = /^(\d{1,2})(?::(\d{2}))?(am|pm)?$/i.exec(clock ?? "");
  const half = time?.[3]?.toLowerCase();
  const written = Number(time?.[1]);
  // 12am is midnight, 12pm noon; 13pm and 0am are no times.
  const hour = half === undefined ? written : (written % 12) + (half === "pm" ? 12 : 0);
  const minute = Number(time?.[2] ?? 0);
  if (!time || hour > 23 || minute > 59 || (half !== undefined && (written < 1 || written > 12))) {
    throw new ScheduleInputError(
      "when",
      clock ?? text,
      "give the time of day as HH:MM, from 00:00 to 23:59, or as 9am or 5:30pm",
    );
  }
  const tz = zoneWords.length > 0 ? canonicalZone(zoneWords.join(" ")) : canonicalZone(zone);
  if (day !== undefined) return cronTiming(`${minute} ${hour} * * ${DAYS[day]}`, tz);
  const base = DateTime.fromMillis(now, { zone: tz }).plus({
    days: relative === "tomorrow" ? 1 : 0,
  });
  const at = base.set({ hour, minute, second: 0, millisecond: 0 }).toMillis();
  if (at <= now) {
    throw new ScheduleInputError(
      "when",
      text,
      "that time has passed today; say tomorrow, or a later time",
    );
  }
  return { kind: "at", at };
}

/** `in 30m`, `in 1h30m`: how far from now. */
function inInterval(input: string, text: string): number {
  try {
    return parseEvery(input.slice(3));
  } catch {
    throw new ScheduleInputError(
      "when",
      text,
      'write how long from now with units s, m, h or d, such as "in 30m" or "in 1h30m"',
    );
  }
}

const DAY_NAME = "(sun|mon|tue|wed|thu|fri|sat)";

function isCronField(field: string): boolean {
  return (
    /^[\d*?][\d*/,\-?L#]*$/.test(field) ||
    new RegExp(`^${DAY_NAME}([-,]${DAY_NAME})*$`, "i").test(field)
  );
}
