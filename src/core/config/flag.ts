import { z } from "zod";
import { describeValue, type KeyPath } from "./errors.ts";

const WORDS: ReadonlyMap<string, boolean> = new Map([
  ["on", true],
  ["true", true],
  ["off", false],
  ["false", false],
]);

/**
 * An on/off switch: a YAML boolean (`true`, `False`) or one of the words
 * on/off/true/false in any case. YAML 1.2 reads `on` and `OFF` as strings, so
 * both spellings arrive here and leave as booleans.
 */
export const flag = z.preprocess(
  (value) => (typeof value === "string" ? (WORDS.get(value.trim().toLowerCase()) ?? value) : value),
  z.boolean(),
);

/**
 * Flags are the only booleans in the schema, so a failed boolean is a bad
 * switch. Its fix quotes the key, which only the full issue path knows.
 */
export function isFlagIssue(issue: { code: string; expected?: unknown }): boolean {
  return issue.code === "invalid_type" && issue.expected === "boolean";
}

export function flagProblem(path: KeyPath, input: unknown): string {
  const key = [...path].reverse().find((segment) => typeof segment === "string") ?? "key";
  return `${describeValue(input)} is not on/off/true/false. Write ${key}: on or ${key}: off.`;
}
