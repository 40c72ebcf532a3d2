import { createRequire } from "node:module";
import type * as Yaml from "yaml";

let loaded: typeof Yaml | undefined;

/**
 * The yaml library, required at the first document read rather than with
 * the package (issue 29): it is some fifty CommonJS modules, a fifth of
 * what `import("switchyard")` cost once the SDKs were deferred. Reading
 * stays pure; only when the library loads moves. CommonJS only, so this is
 * the module every `import ... from "yaml"` gets.
 */
export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return loaded;
}
