import { z } from "zod";
import { describeValue } from "./errors.ts";

/**
 * A map of exactly these keys. Its two errors say what to write instead: an
 * unknown key is named and followed by `takes` (what the map takes), and a
 * value that is not a map is `notAMap(found)` (undefined: zod's own message).
 *
 * @example
 * strictMap({ session }, {
 *   takes: "A channel takes session:.",
 *   notAMap: (found) => `expected a map such as { session: channel }, found ${found}.`,
 * });
 * // unknown key "sesion". A channel takes session:.
 */
export function strictMap<T extends z.core.$ZodLooseShape>(
  shape: T,
  words: { readonly takes: string; readonly notAMap: (found: string) => string | undefined },
) {
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. ${words.takes}`
        : words.notAMap(describeValue(iss.input)),
  });
}

/** What a section's errors say besides its name; each defaults to the section's keys listed. */
export interface SectionWords {
  /** What the section takes, after "The <name> section takes ". */
  readonly takes?: string;
  /** A sentence after that one, e.g. where the secrets are instead. */
  readonly note?: string;
  /** What to put under the section, after "Put ". */
  readonly put?: string;
}

/**
 * A top-level section of the config file: a map of exactly these keys.
 *
 * @example
 * sectionMap("memory", { max_notes, max_note_length });
 * // unknown key "max_note". The memory section takes max_notes: and max_note_length:.
 * // expected a map, found a list. Put max_notes: and max_note_length: under memory:.
 */
export function sectionMap<T extends z.core.$ZodLooseShape>(
  name: string,
  shape: T,
  words: SectionWords = {},
) {
  const keys = listKeys(Object.keys(shape));
  const note = words.note ? ` ${words.note}` : "";
  return strictMap(shape, {
    takes: `The ${name} section takes ${words.takes ?? keys}.${note}`,
    notAMap: (found) => `expected a map, found ${found}. Put ${words.put ?? keys} under ${name}:.`,
  });
}

/** `a:, b: and c:`, the way the errors list a map's keys. */
export function listKeys(keys: readonly string[]): string {
  const written = keys.map((key) => `${key}:`);
  const last = written.pop() ?? "";
  return written.length === 0 ? last : `${written.join(", ")} and ${last}`;
}

/** A section left empty (`tools:` with nothing under it) reads as an empty map. */
export const section = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => value ?? {}, schema);
