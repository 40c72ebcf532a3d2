import { z } from "zod";
import { ASK, isKeyValue, type KeyValue } from "../availability/keys.ts";
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

/** Marks a failed {@link keyFlag}, so its problem can quote the key (see {@link flagProblem}). */
const KEY_FLAG_ISSUE = "not a tool key's value";

/**
 * A tool key's value in the `tools:` section: a {@link flag}, or `ask` (on,
 * each call approved by a person first), in any case.
 */
export const keyFlag = z.preprocess(
  (value) => {
    if (typeof value !== "string") return value;
    const word = value.trim().toLowerCase();
    return word === ASK ? ASK : (WORDS.get(word) ?? value);
  },
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (isKeyValue(value)) return;
      // Worded like a failed boolean, so a union (`mcp:` a switch or a map) reads it as a shape mismatch.
      ctx.addIssue({
        code: "invalid_type",
        expected: "boolean",
        input: value,
        message: KEY_FLAG_ISSUE,
      });
    })
    .transform((value) => value as KeyValue),
);

/**
 * Flags are the only booleans in the schema, so a failed boolean is a bad
 * switch. Its fix quotes the key, which only the full issue path knows.
 */
export function isFlagIssue(issue: {
  code: string;
  expected?: unknown;
  message?: string;
}): boolean {
  return (issue.code === "invalid_type" && issue.expected === "boolean") || isKeyFlagIssue(issue);
}

function isKeyFlagIssue(issue: { code: string; message?: string }): boolean {
  return issue.code === "invalid_type" && issue.message === KEY_FLAG_ISSUE;
}

export function flagProblem(
  path: KeyPath,
  input: unknown,
  issue?: { code: string; message?: string },
): string {
  const key = [...path].reverse().find((segment) => typeof segment === "string") ?? "key";
  if (issue !== undefined && isKeyFlagIssue(issue)) {
    return `${describeValue(input)} is not on/off/ask/true/false. Write ${key}: on, ${key}: off or ${key}: ask.`;
  }
  return `${describeValue(input)} is not on/off/true/false. Write ${key}: on or ${key}: off.`;
}
