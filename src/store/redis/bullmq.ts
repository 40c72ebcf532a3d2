import { createRequire } from "node:module";
import type * as BullMQ from "bullmq";

let loaded: typeof BullMQ | undefined;

/**
 * BullMQ, required at the first queue or worker rather than with the
 * package, so that `import("switchyard")` stays cheap (issue 29). Its
 * package is CommonJS only, so this is the very module every
 * `import ... from "bullmq"` gets: one `Queue`, one `UnrecoverableError`.
 */
export function bullmq(): typeof BullMQ {
  loaded ??= createRequire(import.meta.url)("bullmq") as typeof BullMQ;
  return loaded;
}
