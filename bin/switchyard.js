#!/usr/bin/env node
// The `switchyard` command. An installed package has no src/: it runs the built
// CLI in dist/ on plain node. A checkout (src/cli.ts beside this folder) runs the
// TypeScript source through tsx, a dev dependency, so an edit takes effect
// without a rebuild and a stale dist/ can never answer for the source.
import { existsSync } from "node:fs";

// `switchyard test` is the test kit's own command (src/testing), not the bot's CLI:
// nothing a bot runs in production loads the kit.
const kit = process.argv[2] === "test";
const entry = kit ? "testing/scenario-command" : "cli";
const source = new URL(`../src/${entry}.ts`, import.meta.url);
const built = new URL(`../dist/${entry}.js`, import.meta.url);

/** Runs the entry: the CLI runs on import; the test command is handed its arguments. */
async function run(url) {
  const module = await import(url.href);
  if (kit) await module.main(process.argv.slice(3));
}

async function tsxLoader() {
  try {
    return await import("tsx/esm/api");
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

// SWITCHYARD_FROM_DIST=1: a checkout runs its build (the test suite's processes do, when
// dist/ is newer than every source: compiling the source at each start was most of their CPU).
const fromDist = process.env.SWITCHYARD_FROM_DIST === "1" && existsSync(built);
const tsx = existsSync(source) && !fromDist ? await tsxLoader() : undefined;
if (tsx !== undefined) {
  tsx.register();
  await run(source);
} else if (existsSync(built)) {
  await run(built);
} else {
  process.stderr.write(
    existsSync(source)
      ? "switchyard: this checkout has neither tsx (run `npm install` for the dev dependencies) " +
          `nor a build (run \`npm run build\`), so there is nothing to run src/${entry}.ts with.\n`
      : `switchyard: dist/${entry}.js is missing: this copy of the package was never built. ` +
          "Reinstall it, or run `npm run build` in its folder.\n",
  );
  process.exitCode = 2;
}
