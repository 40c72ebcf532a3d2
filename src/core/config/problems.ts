import type { z } from "zod";
import type { KeyPath } from "./errors.ts";
import { flagProblem, isFlagIssue } from "./flag.ts";

/** One thing wrong at one key, worded for the person editing the file. */
export interface Problem {
  readonly path: KeyPath;
  readonly problem: string;
}

type Issue = z.core.$ZodIssue;

/**
 * Turns a zod issue into problems with full paths. A union that failed (a
 * toolset is a list or a map; `mcp` a switch or a map) is reported through
 * the branch that matched the value's shape, so `mcp: { github: maybe }`
 * complains about `github`, not about `mcp` not being a boolean.
 */
export function problemsOf(issue: Issue, prefix: KeyPath = []): Problem[] {
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case "invalid_union": {
      const shaped = issue.errors.find((branch) => !branch.some(isShapeMismatch));
      if (shaped === undefined) return [{ path, problem: issue.message }];
      return shaped.flatMap((inner) => problemsOf(inner, path));
    }
    case "unrecognized_keys":
      return [{ path: [...path, ...issue.keys.slice(0, 1)], problem: issue.message }];
    default:
      if (isFlagIssue(issue)) return [{ path, problem: flagProblem(path, issue.input, issue) }];
      return [{ path, problem: issue.message }];
  }
}

function isShapeMismatch(issue: Issue): boolean {
  return issue.path.length === 0 && issue.code === "invalid_type";
}
