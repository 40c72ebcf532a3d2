import { formatDuration, parseDuration } from "./duration.ts";
import { ReminderTimeError } from "./errors.ts";
import { canonicalTimeZone, type LocalTimeAdjustment, parseDateTime } from "./local-time.ts";
import { describeInstant } from "./time-text.ts";

/** When a reminder should fire, as `set_reminder` takes it: `at` or `in`, not both. */
export interface WhenInput {
  /** ISO 8601 date-time: local (`2026-12-01T09:00`, read in the zone) or with an offset. */
  readonly at?: string | undefined;
  /** A duration from now: `90m`, `2h30m`, `1d`. */
  readonly in?: string | undefined;
  /** IANA zone for a local `at` and for showing the time; the configured default when absent. */
  readonly timeZone?: string | undefined;
}

export interface TimeRules {
  /** The zone when the person names none (config `reminders.time_zone`). */
  readonly defaultTimeZone: string;
  /** The furthest ahead a reminder may be, in milliseconds. */
  readonly maxHorizonMs: number;
}

export interface ResolvedWhen {
  /** Milliseconds since the epoch. */
  readonly dueAt: number;
  /** The zone the person sees the time in, canonical spelling. */
  readonly timeZone: string;
  readonly adjustment?: LocalTimeAdjustment;
}

/**
 * Turns `at` / `in` into the instant the reminder fires, refusing times that
 * are not in the future or lie beyond the horizon. `now` is handed in, so
 * the same input at the same moment always resolves the same way.
 *
 * @throws ReminderTimeError, DurationSyntaxError, DateTimeSyntaxError or UnknownTimeZoneError.
 */
export function resolveWhen(input: WhenInput, now: number, rules: TimeRules): ResolvedWhen {
  const at = input.at?.trim() || undefined;
  const after = input.in?.trim() || undefined;
  if (at !== undefined && after !== undefined) {
    throw new ReminderTimeError(
      "both",
      `Give either at (a date and time) or in (a duration), not both; got at: ${JSON.stringify(at)} and in: ${JSON.stringify(after)}.`,
    );
  }
  if (at === undefined && after === undefined) {
    throw new ReminderTimeError(
      "missing",
      'Say when: at: "2026-12-01T09:00" (a date and time) or in: "2h30m" (a duration from now).',
    );
  }
  const timeZone = canonicalTimeZone(input.timeZone?.trim() || rules.defaultTimeZone);
  let dueAt: number;
  let adjustment: LocalTimeAdjustment | undefined;
  if (after !== undefined) {
    dueAt = now + parseDuration(after);
  } else {
    const parsed = parseDateTime(at as string, timeZone);
    dueAt = parsed.instant;
    adjustment = parsed.adjustment;
  }
  if (dueAt <= now) {
    const when =
      after !== undefined
        ? `in ${JSON.stringify(after)} is now`
        : `${describeInstant(dueAt, timeZone)} is in the past`;
    throw new ReminderTimeError(
      "past",
      `A reminder needs a time in the future, but ${when} (it is ${describeInstant(now, timeZone)}). Give a later time, or a duration such as in: "2h".`,
    );
  }
  if (dueAt - now > rules.maxHorizonMs) {
    throw new ReminderTimeError(
      "too_far",
      `${describeInstant(dueAt, timeZone)} is ${formatDuration(dueAt - now)} away; reminders can be set at most ${formatDuration(rules.maxHorizonMs)} ahead (until ${describeInstant(now + rules.maxHorizonMs, timeZone)}). Pick an earlier time.`,
    );
  }
  return adjustment === undefined ? { dueAt, timeZone } : { dueAt, timeZone, adjustment };
}
