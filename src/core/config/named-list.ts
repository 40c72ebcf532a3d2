import { z } from "zod";
import { describeValue } from "./errors.ts";

/** How a named list's errors speak of its entries. */
export interface NamedListWords {
  /** One entry, e.g. `hook`. */
  readonly one: string;
  /** The list, e.g. `hooks`. */
  readonly many: string;
  /** The key with an article, e.g. `a name`. */
  readonly aKey: string;
}

/**
 * A config list of entries that each name themselves by `key` (a hook's
 * name, a schedule's id): the same name twice is an error at the later
 * entry, and the list comes out frozen.
 *
 * @example
 * namedList(hookEntry, "name", { one: "hook", many: "hooks", aKey: "a name" });
 * // "nightly" is the name of an earlier hook. Give each hook a name of its own.
 */
export function namedList<K extends string, T extends Readonly<Record<K, string>>>(
  entry: z.ZodType<T>,
  key: K,
  words: NamedListWords,
) {
  return z
    .array(entry, {
      error: (iss) =>
        `expected a list of ${words.many} (each "- ${key}: ..."), found ${describeValue(iss.input)}.`,
    })
    .transform((list, ctx): readonly T[] => {
      const seen = new Set<string>();
      list.forEach((item, index) => {
        const name = item[key];
        if (seen.has(name)) {
          ctx.addIssue({
            code: "custom",
            path: [index, key],
            message: `${JSON.stringify(name)} is the ${key} of an earlier ${words.one}. Give each ${words.one} ${words.aKey} of its own.`,
          });
        }
        seen.add(name);
      });
      return Object.freeze(list);
    });
}
