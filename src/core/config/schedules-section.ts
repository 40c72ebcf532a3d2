import { z } from "zod";
import {
  checkSchedule,
  cronTiming,
  parseEvery,
  type Schedule,
  ScheduleInputError,
  type Timing,
} from "../schedules/index.ts";
import { describeValue } from "./errors.ts";
import { namedList } from "./named-list.ts";
import { strictMap } from "./section-map.ts";
import { nonEmptyText, ownerField, targetField } from "./target-field.ts";

/**
 * Schedules an operator declares: at each tick the bot gets `prompt` in
 * `target`, as `owner` (see docs/operate/schedules.md). Exactly one of
 * `cron:` (with `tz:`, UTC by default), `every:` and `at:`.
 *
 * ```yaml
 * schedules:
 *   - id: standup
 *     target: { platform: slack, workspace: T0123, channel: C0456 }
 *     prompt: Summarise yesterday in #incidents.
 *     cron: "0 9 * * 1-5"
 *     tz: Europe/Berlin
 *     owner: U0789
 *     catch_up: one     # or none
 *     max_runs: 100     # optional
 *     until: 2027-06-30T18:00Z  # optional
 * ```
 */
export type SchedulesConfig = readonly Schedule[];

export const NO_SCHEDULES: SchedulesConfig = Object.freeze([]);

/** A date and time with its zone, as ms since the epoch. */
const instant = (key: string) =>
  z.union([z.string(), z.date()]).transform((value, ctx) => {
    const ms = value instanceof Date ? value.getTime() : Date.parse(value);
    if (Number.isFinite(ms) && (value instanceof Date || /(z|[+-]\d\d:?\d\d)$/i.test(value.trim())))
      return ms;
    ctx.addIssue({
      code: "custom",
      message: `${describeValue(value)} is not a date and time with its zone. Write ${key}: 2027-01-31T09:00Z (or with an offset, +01:00).`,
    });
    return z.NEVER;
  });

const entry = strictMap(
  {
    id: nonEmptyText("an id such as daily-standup"),
    target: targetField,
    prompt: nonEmptyText("what the bot should do at each run"),
    cron: nonEmptyText('a cron pattern such as "0 9 * * 1-5"').optional(),
    tz: nonEmptyText("an IANA time zone such as Europe/Berlin").optional(),
    every: nonEmptyText('an interval such as "2h"').optional(),
    at: instant("at").optional(),
    owner: ownerField("the owner's user id"),
    max_runs: z
      .number({ error: "expected a whole number of runs." })
      .int({ error: "expected a whole number of runs." })
      .min(1, { error: "must be at least 1." })
      .optional(),
    until: instant("until").optional(),
    catch_up: z
      .enum(["one", "none"], {
        error: (iss) =>
          `${describeValue(iss.input)} is not a catch-up. Write catch_up: one (one run for the ticks missed while the bot was down) or catch_up: none (skip them).`,
      })
      .optional(),
  },
  {
    takes:
      "A schedule takes id:, target:, prompt:, one of cron: (with tz:), every: and at:, owner:, max_runs:, until: and catch_up:.",
    notAMap: (found) =>
      `expected a map with id:, target:, prompt:, a timing and owner:, found ${found}.`,
  },
).transform((raw, ctx): Schedule => {
  const timings = (["cron", "every", "at"] as const).filter((key) => raw[key] !== undefined);
  if (timings.length !== 1) {
    ctx.addIssue({
      code: "custom",
      message:
        timings.length === 0
          ? 'has no timing. Give one of cron: "0 9 * * 1-5" (with tz:), every: 2h or at: 2027-01-31T09:00Z.'
          : `has ${timings.map((k) => `${k}:`).join(" and ")}. Give exactly one timing: cron:, every: or at:.`,
    });
    return z.NEVER;
  }
  if (raw.tz !== undefined && raw.cron === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["tz"],
      message: "is read with cron: only. Remove tz:, or give cron: as the timing.",
    });
    return z.NEVER;
  }
  try {
    const timing: Timing =
      raw.cron !== undefined
        ? cronTiming(raw.cron, raw.tz ?? "UTC")
        : raw.every !== undefined
          ? { kind: "every", everyMs: parseEvery(raw.every) }
          : { kind: "at", at: raw.at as number };
    return checkSchedule({
      id: raw.id,
      target: raw.target,
      prompt: raw.prompt,
      timing,
      owner: { user: raw.owner },
      ...(raw.max_runs !== undefined ? { maxRuns: raw.max_runs } : {}),
      ...(raw.until !== undefined ? { until: raw.until } : {}),
      catchUp: raw.catch_up ?? "one",
      origin: "config",
    });
  } catch (error) {
    if (!(error instanceof ScheduleInputError)) throw error;
    ctx.addIssue({
      code: "custom",
      path: [error.field],
      message: `${JSON.stringify(error.token)} cannot be used: ${error.fix}.`,
    });
    return z.NEVER;
  }
});

export const schedulesSection = namedList(entry, "id", {
  one: "schedule",
  many: "schedules",
  aKey: "an id",
});
