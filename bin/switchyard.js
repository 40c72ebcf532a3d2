#!/usr/bin/env node
// The `switchyard` command. An installed package has no src/: it runs the built
// CLI in dist/ on plain node. A checkout (src/cli.ts beside this folder) runs the
// TypeScript source through tsx, a dev dependency, so an edit takes effect
// without a rebuild and a stale dist/ can never answer for the source.
import { existsSync } from "node:fs";

const source = new URL("../src/cli.ts", import.meta.url);
const built = new URL("../dist/cli.js", import.meta.url);

async function tsxLoader() {
  try {
    return await import("tsx/esm/api");
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

const tsx = existsSync(source) ? await tsxLoader() : undefined;
if (tsx !== undefined) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    existsSync(source)
      ? "switchyard: this checkout has neither tsx (run `npm install` for the dev dependencies) " +
          "nor a build (run `npm run build`), so there is nothing to run src/cli.ts with.\n"
      : "switchyard: dist/cli.js is missing: this copy of the package was never built. " +
          "Reinstall it, or run `npm run build` in its folder.\n",
  );
  process.exitCode = 2;
}
