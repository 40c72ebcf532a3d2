import { namedError } from "../named-error.ts";

/**
 * A schedule that cannot be used as written: `token` is the part that is
 * wrong and `fix` says what to write instead, so the config loader, the chat
 * command and the tool all answer with the same sentence.
 *
 * @example
 * new ScheduleInputError("every", "2 hours", 'write an interval such as "every 2h" or "every 30m"').message;
 * // every: "2 hours" cannot be used: write an interval such as "every 2h" or "every 30m".
 */
export class ScheduleInputError extends namedError("ScheduleInputError") {
  constructor(
    /** Which part of the schedule: `cron`, `tz`, `every`, `at`, `until`, `max_runs`, `id`, `prompt`. */
    readonly field: string,
    /** What was written there. */
    readonly token: string,
    /** What to write instead. */
    readonly fix: string,
  ) {
    super(`${field}: ${JSON.stringify(token)} cannot be used: ${fix}.`);
  }
}

/** A schedule record in Redis that does not decode: written by another version, or damaged. */
export class ScheduleDataError extends namedError("ScheduleDataError") {}
