import { IANAZone } from "luxon";
import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * How `set_reminder` reads times and how far ahead it lets people plan.
 *
 * ```yaml
 * reminders:
 *   time_zone: Europe/Berlin   # for `at` times written without a zone (default UTC)
 *   max_horizon_days: 365      # the furthest ahead a reminder may be set
 *   max_pending: 50            # pending reminders per person per workspace
 * ```
 */
export interface RemindersConfig {
  /** An IANA zone name, canonical spelling (`europe/berlin` reads as `Europe/Berlin`). */
  readonly timeZone: string;
  readonly maxHorizonDays: number;
  readonly maxPending: number;
}

export const DEFAULT_REMINDERS: RemindersConfig = Object.freeze({
  timeZone: "UTC",
  maxHorizonDays: 365,
  maxPending: 50,
});

const wholeNumber = (what: string, max: number) =>
  z
    .number({
      error: (iss) => `expected a whole number of ${what}, found ${describeValue(iss.input)}.`,
    })
    .int({ error: (iss) => `expected a whole number of ${what}, found ${String(iss.input)}.` })
    .min(1, { error: "must be at least 1." })
    .max(max, { error: `must be at most ${max}.` });

/** The zone's canonical name, or undefined when it is not an IANA zone. */
function canonicalZone(name: string): string | undefined {
  if (!IANAZone.isValidZone(name)) return undefined;
  return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
}

const timeZone = z
  .string({
    error: (iss) =>
      `expected an IANA time zone name such as Europe/Berlin, found ${describeValue(iss.input)}.`,
  })
  .transform((name, ctx) => {
    const zone = canonicalZone(name.trim());
    if (zone !== undefined) return zone;
    ctx.addIssue({
      code: "custom",
      message: `${describeValue(name)} is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.`,
    });
    return z.NEVER;
  });

export const remindersSection = sectionMap("reminders", {
  time_zone: timeZone.default(DEFAULT_REMINDERS.timeZone),
  max_horizon_days: wholeNumber("days", 3_650).default(DEFAULT_REMINDERS.maxHorizonDays),
  max_pending: wholeNumber("reminders", 10_000).default(DEFAULT_REMINDERS.maxPending),
}).transform(
  (r): RemindersConfig =>
    Object.freeze({
      timeZone: r.time_zone,
      maxHorizonDays: r.max_horizon_days,
      maxPending: r.max_pending,
    }),
);
