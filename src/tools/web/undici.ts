import { createRequire } from "node:module";
import type * as Undici from "undici";

let loaded: typeof Undici | undefined;
let plain: Undici.Agent | undefined;

/** Where Node's own fetch's undici and discord.js's undici 6 find the process's dispatcher; undici 7 keeps its own beside it. */
const LEGACY_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/**
 * undici, required at the first request a tool or an attachment download
 * makes rather than with the package, so that `import("switchyard")` stays
 * cheap (issue 29). It is CommonJS only: this is the module every
 * `import ... from "undici"` gets.
 *
 * Loading undici 7's entry point makes its Agent the global dispatcher of
 * every undici in the process when it finds none of its own, including the
 * one Node's `fetch` and discord.js's undici 6 send through; discord.js's
 * uploads go astray on it (src/testing/fakes/multipart.ts). So Node's own
 * undici is loaded first, which sets its Agent there, and that one is put
 * back after: undici 7 keeps its Agent under its own key, and the older
 * ones keep theirs.
 */
export function undici(): typeof Undici {
  if (loaded) return loaded;
  const global = globalThis as Record<symbol, unknown>;
  // Node's web globals come from its bundled undici, which sets its dispatcher as it loads.
  void globalThis.Headers;
  const before = global[LEGACY_DISPATCHER];
  loaded = createRequire(import.meta.url)("undici") as typeof Undici;
  // undici defines the key writable (and not configurable), so its value can be put back.
  if (before !== undefined) global[LEGACY_DISPATCHER] = before;
  return loaded;
}

/** The keep-alive pool for this undici's calls that need no address guard (a platform's own file host, a search API). */
export function plainAgent(): Undici.Agent {
  plain ??= new (undici().Agent)();
  return plain;
}
