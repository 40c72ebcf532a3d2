import { namedError } from "../../core/named-error.ts";

/**
 * Everything a person (or the model) can get wrong about a reminder. The
 * tools answer these with their message; any other error is a real failure.
 */
export class ReminderInputError extends namedError("ReminderInputError") {}

/** Text that should be a time and does not parse; `token` is the part that is wrong. */
export abstract class TimeSyntaxError extends ReminderInputError {
  constructor(
    readonly input: string,
    readonly token: string,
    message: string,
  ) {
    super(message);
  }
}

/** A duration such as `2h30m` that does not parse. */
export class DurationSyntaxError extends TimeSyntaxError {
  override readonly name = "DurationSyntaxError";
}

/** A date and time such as `2026-12-01T09:00` that does not parse. */
export class DateTimeSyntaxError extends TimeSyntaxError {
  override readonly name = "DateTimeSyntaxError";
}

export class UnknownTimeZoneError extends ReminderInputError {
  override readonly name = "UnknownTimeZoneError";
  constructor(readonly zone: string) {
    super(
      /^(utc|gmt)?\s*[+-]\d/i.test(zone.trim())
        ? `${JSON.stringify(zone)} is an offset, not a time zone. Put the offset on the time itself (at: "2026-12-01T09:00+02:00") or name the zone, e.g. time_zone: "Europe/Berlin".`
        : `${JSON.stringify(zone)} is not an IANA time zone. Use a name such as "Europe/Berlin", "America/New_York" or "UTC".`,
    );
  }
}

/** A time that parses but cannot be a reminder's: in the past, too far ahead, or not given at all. */
export class ReminderTimeError extends ReminderInputError {
  override readonly name = "ReminderTimeError";
  constructor(
    readonly reason: "past" | "too_far" | "missing" | "both",
    message: string,
  ) {
    super(message);
  }
}

/** The person has as many pending reminders as the config allows, or the text is too long. */
export class ReminderLimitError extends ReminderInputError {
  override readonly name = "ReminderLimitError";
  constructor(
    readonly limit: "pending" | "text_length",
    readonly max: number,
    message: string,
  ) {
    super(message);
  }
}

/** `cancel_reminder` named a reminder this person has no pending reminder by. */
export class ReminderNotFoundError extends ReminderInputError {
  override readonly name = "ReminderNotFoundError";
  constructor(readonly id: string) {
    super(
      `You have no pending reminder ${JSON.stringify(id)} in this workspace. Call list_reminders to see your reminders and their ids.`,
    );
  }
}

/** A reminder job whose data is not a reminder (written by another version, or by hand). */
export class ReminderDataError extends namedError("ReminderDataError") {}
