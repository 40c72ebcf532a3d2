import { createRequire } from "node:module";
import type * as Undici from "undici";

let loaded: typeof Undici | undefined;

/**
 * undici, required at the first request a tool or an attachment download
 * makes rather than with the package, so that `import("switchyard")` stays
 * cheap (issue 29). It is CommonJS only: this is the module every
 * `import ... from "undici"` gets.
 */
export function undici(): typeof Undici {
  loaded ??= createRequire(import.meta.url)("undici") as typeof Undici;
  return loaded;
}
