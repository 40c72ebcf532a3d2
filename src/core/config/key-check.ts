import type { z } from "zod";
import { describeValue } from "./errors.ts";

/**
 * A check for `.superRefine(...)` on a map: each key `fits` fails with an
 * issue at that key, whose message is the key (described) and then `problem`.
 *
 * @example
 * z.record(z.string(), flag).superRefine(everyKey(isName, "is not a name. Use ..."));
 * // "Mixed Case!" is not a name. Use ...
 */
export function everyKey(fits: (key: string) => boolean, problem: string) {
  return (map: object, ctx: z.core.$RefinementCtx<object>): void => {
    for (const key of Object.keys(map)) {
      if (fits(key)) continue;
      ctx.addIssue({ code: "custom", path: [key], message: `${describeValue(key)} ${problem}` });
    }
  };
}
