import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * The limits of the `remember` / `recall` / `forget` tools. Notes belong to one
 * person in one workspace; the limits keep a chatty model from filling Redis.
 *
 * ```yaml
 * memory:
 *   max_notes: 100        # notes per person per workspace; remember refuses beyond it
 *   max_note_length: 500  # characters per note; longer notes are refused, never cut
 * ```
 */
export interface MemoryConfig {
  readonly maxNotes: number;
  readonly maxNoteLength: number;
}

export const DEFAULT_MEMORY: MemoryConfig = Object.freeze({ maxNotes: 100, maxNoteLength: 500 });

const count = (what: string, max: number, example: number) =>
  z
    .number({
      error: (iss) => `expected a whole number of ${what}, found ${describeValue(iss.input)}.`,
    })
    .int({ error: (iss) => `expected a whole number of ${what}, found ${String(iss.input)}.` })
    .min(1, {
      error: `must be at least 1 (to turn the tools off, write remember: off under tools:).`,
    })
    .max(max, { error: `must be at most ${max}; ${example} is a sensible value.` });

export const memorySection = sectionMap("memory", {
  max_notes: count("notes", 10_000, DEFAULT_MEMORY.maxNotes).default(DEFAULT_MEMORY.maxNotes),
  max_note_length: count("characters", 10_000, DEFAULT_MEMORY.maxNoteLength).default(
    DEFAULT_MEMORY.maxNoteLength,
  ),
}).transform(
  (m): MemoryConfig => Object.freeze({ maxNotes: m.max_notes, maxNoteLength: m.max_note_length }),
);
