import { createRequire } from "node:module";
import type * as IORedis from "ioredis";

let loaded: typeof IORedis | undefined;

/**
 * ioredis, required at the first connection rather than with the package,
 * so that `import("switchyard")` stays cheap (issue 29). It is CommonJS
 * only, so this is the very module every `import ... from "ioredis"` gets:
 * one `Redis.prototype` (the one tracing-clients.ts patches), and one
 * `ReplyError` for `instanceof`.
 */
export function ioredis(): typeof IORedis {
  loaded ??= createRequire(import.meta.url)("ioredis") as typeof IORedis;
  return loaded;
}
