import { namedError } from "../../core/named-error.ts";

/**
 * A note that cannot be stored as asked. The message is written for the model
 * (and the person behind it): which limit, and what to do instead. Limits
 * refuse; they never truncate a note or evict an old one silently.
 */
export class MemoryLimitError extends namedError("MemoryLimitError") {
  constructor(
    /** `note_length`: the note is too long; `notes_per_user`: the person has too many notes. */
    readonly limit: "note_length" | "notes_per_user",
    readonly max: number,
    message: string,
  ) {
    super(message);
  }
}

/** A `forget` that names no note, or one that does not exist. */
export class NoteNotFoundError extends namedError("NoteNotFoundError") {
  constructor(readonly id: string) {
    super(
      `There is no note ${JSON.stringify(id)}. Call recall to see the notes and their ids, then forget one of those.`,
    );
  }
}
