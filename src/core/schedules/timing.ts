// BullMQ's own cron parser (its dependency), so a pattern means here what it means to the job scheduler.
// A CommonJS module: its functions come off the default export under Node's ESM.
import cronParser from "cron-parser";
import { IANAZone } from "luxon";
import { ScheduleInputError } from "./errors.ts";

/**
 * When a schedule runs: a cron pattern read in a time zone, a fixed
 * interval, or one single time. Cron patterns take five fields (minute
 * first) or six (seconds first), as BullMQ's job schedulers read them.
 * A daily time that a spring-forward skips runs at the shifted wall time
 * (02:30 becomes 03:30 that day), and one that a fall-back repeats runs
 * once, at its first occurrence: how reminders read such times too.
 */
export type Timing =
  | { readonly kind: "cron"; readonly pattern: string; readonly tz: string }
  | { readonly kind: "every"; readonly everyMs: number }
  | { readonly kind: "at"; readonly at: number };

/** The shortest interval allowed: a shorter one would be a busy loop of model calls. */
export const MIN_EVERY_MS = 1_000;

/** Ticks counted past this are not counted one by one: "more than 1000 missed" is enough to say. */
export const MAX_COUNTED_TICKS = 1_000;

const { parseExpression } = cronParser;

const UNITS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * An interval such as `2h`, `every 2h`, `90m`, `1h30m` or `45s`, in
 * milliseconds.
 *
 * @throws ScheduleInputError naming the interval and how to write one
 */
export function parseEvery(text: string): number {
  const body = text
    .trim()
    .toLowerCase()
    .replace(/^every\s+/, "");
  const parts = [...body.matchAll(/(\d+)\s*([smhd])/g)];
  const rest = body.replace(/(\d+)\s*([smhd])/g, "").trim();
  if (parts.length === 0 || rest !== "") {
    throw new ScheduleInputError(
      "every",
      text,
      'write an interval of whole numbers with units s, m, h or d, such as "every 2h", "30m" or "1h30m"',
    );
  }
  const ms = parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNITS[unit as string] ?? 0), 0);
  if (ms < MIN_EVERY_MS) {
    throw new ScheduleInputError("every", text, "use an interval of at least 1s");
  }
  return ms;
}

/**
 * The zone's canonical IANA name.
 *
 * @throws ScheduleInputError when it is not one
 */
export function canonicalZone(zone: string): string {
  const name = zone.trim();
  if (name !== "" && IANAZone.isValidZone(name)) {
    return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  }
  throw new ScheduleInputError(
    "tz",
    zone,
    "name an IANA time zone such as Europe/Berlin, America/New_York or UTC",
  );
}

/**
 * A cron pattern checked for use: five or six fields that cron-parser (the
 * parser BullMQ itself uses) reads, in a real time zone.
 *
 * @throws ScheduleInputError naming the pattern or the zone
 */
export function cronTiming(pattern: string, tz = "UTC"): Timing {
  const trimmed = pattern.trim().replace(/\s+/g, " ");
  const fields = trimmed.split(" ").length;
  const zone = canonicalZone(tz);
  if (fields < 5 || fields > 6) {
    throw new ScheduleInputError(
      "cron",
      pattern,
      `write five fields (minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5") or six with seconds first; this has ${fields}`,
    );
  }
  try {
    parseExpression(trimmed, { tz: zone }).next();
  } catch (error) {
    throw new ScheduleInputError(
      "cron",
      pattern,
      `${(error as Error).message}; write a pattern such as "0 9 * * 1-5" (09:00 on weekdays)`,
    );
  }
  return { kind: "cron", pattern: trimmed, tz: zone };
}

/**
 * The next `count` run times strictly after `after`, soonest first; fewer
 * when the timing ends (a single time already past has none).
 */
export function nextRuns(timing: Timing, after: number, count: number): number[] {
  const runs: number[] = [];
  if (timing.kind === "at") return timing.at > after && count > 0 ? [timing.at] : [];
  if (timing.kind === "every") {
    for (let i = 1; i <= count; i++) runs.push(after + i * timing.everyMs);
    return runs;
  }
  const iterator = parseExpression(timing.pattern, { currentDate: new Date(after), tz: timing.tz });
  for (let i = 0; i < count; i++) {
    try {
      runs.push(iterator.next().getTime());
    } catch {
      break;
    }
  }
  return runs;
}

/** What a late tick stands for: how many ticks fell in the span, and the latest of them. */
export interface TickSpan {
  /** Ticks in `(after, upTo]`, at most {@link MAX_COUNTED_TICKS} + 1. */
  readonly count: number;
  /** The latest tick in the span; undefined when there is none. */
  readonly latest: number | undefined;
}

/**
 * The ticks of `timing` in `(after, upTo]`. An interval's ticks fall on the
 * grid through `anchor` (the tick a job was made for), as BullMQ's `every`
 * schedulers place them. How a late job learns how many runs it stands for.
 */
export function ticksBetween(
  timing: Timing,
  after: number,
  upTo: number,
  anchor = after,
): TickSpan {
  if (upTo <= after) return { count: 0, latest: undefined };
  if (timing.kind === "at") {
    return timing.at > after && timing.at <= upTo
      ? { count: 1, latest: timing.at }
      : { count: 0, latest: undefined };
  }
  if (timing.kind === "every") {
    const every = timing.everyMs;
    // The first grid point after `after`, and the last at or before `upTo`.
    const first = anchor + Math.floor((after - anchor) / every + 1) * every;
    if (first > upTo) return { count: 0, latest: undefined };
    const steps = Math.floor((upTo - first) / every);
    return { count: Math.min(steps + 1, MAX_COUNTED_TICKS + 1), latest: first + steps * every };
  }
  const iterator = parseExpression(timing.pattern, {
    currentDate: new Date(after),
    endDate: new Date(upTo),
    tz: timing.tz,
  });
  let count = 0;
  let latest: number | undefined;
  while (count <= MAX_COUNTED_TICKS) {
    try {
      latest = iterator.next().getTime();
    } catch {
      break;
    }
    count++;
  }
  if (count > MAX_COUNTED_TICKS) {
    // Too many to walk one by one: the latest is the one just before `upTo`.
    const back = parseExpression(timing.pattern, {
      currentDate: new Date(upTo + 1),
      tz: timing.tz,
    });
    latest = back.prev().getTime();
  }
  return { count, latest };
}

/** The timing as a person reads it back: `cron "0 9 * * 1-5" (Europe/Berlin)`, `every 2h`, an ISO time. */
export function describeTiming(timing: Timing): string {
  if (timing.kind === "cron") return `cron "${timing.pattern}" (${timing.tz})`;
  if (timing.kind === "every") return `every ${formatInterval(timing.everyMs)}`;
  return `once at ${new Date(timing.at).toISOString()}`;
}

function formatInterval(ms: number): string {
  let rest = ms;
  let out = "";
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || `${ms}ms`;
}
