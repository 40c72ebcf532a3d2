/**
 * Bundles the `switchyard` command (src/cli.ts) into dist/cli.js, over the
 * module-per-file dist/cli.js that tsc wrote, so a worker's start reads a
 * few files instead of Node's ESM loader resolving and compiling some 400 of
 * our modules and zod's 95 (issue 36). dist/index.js and the rest of dist/
 * stay as tsc wrote them: the library a bot's author imports is unchanged,
 * and the bundle finds its Lua scripts, skills and worker threads there.
 *
 * Code splitting keeps every `import()` lazy: each command, platform and
 * optional part is a chunk of its own, loaded when that part starts. The
 * chunks sit beside dist/cli.js (cli-chunk-*.js) so that every module of a
 * chunk is one folder below dist/ in the same place, which is what the
 * `import.meta.url` rewrite below relies on.
 *
 * Usage: node scripts/bundle.mjs (run by `npm run build`, after tsc).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");
const MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/**
 * Dependencies compiled into the bundle: pure JavaScript that our modules
 * `import`, that never reads its own files at run time, and that no external
 * package requires for itself (which would load it a second time). zod alone
 * is 95 files the loader would otherwise resolve and compile one by one
 * before a worker is ready; @opentelemetry/api is 65 (the tracing SDK, loaded
 * only when tracing is on, meets the bundled copy through the API's global
 * registry, as two installed copies would); the markdown parser is some 50
 * small packages a Telegram worker loads with its channel.
 */
const INLINED = new Set([
  "zod",
  "luxon",
  "ipaddr.js",
  "eventsource-parser",
  "@opentelemetry/api",
  "mdast-util-from-markdown",
  "mdast-util-gfm",
  "micromark-extension-gfm",
]);

/**
 * Every other dependency stays a package in node_modules, loaded as it is
 * without the bundle: the ones with native code or that find their own files
 * (sharp; undici, which the Telegram client requires by path; pino, whose
 * transports are worker threads), the ones our code requires lazily with
 * createRequire (bullmq, ioredis, pino, prom-client, yaml), the ones those
 * require too (cron-parser by BullMQ, safe-stable-stringify by pino: one
 * copy serves both), and the platform and model SDKs, which only a started
 * part loads.
 */
const EXTERNAL = [
  ...Object.keys(MANIFEST.dependencies),
  ...Object.keys(MANIFEST.peerDependencies ?? {}),
  ...Object.keys(MANIFEST.devDependencies),
]
  .filter((name) => !INLINED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/**
 * Our modules find files beside themselves (`new URL("./lua/", import.meta.url)`,
 * the skills folder, the document reader's worker thread): in the bundle
 * `import.meta.url` is the chunk's, so each module's is rewritten to the URL
 * tsc's copy of it has in dist/, where those files are.
 */
const moduleUrls = {
  name: "module-urls",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(SRC)) return undefined;
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const built = `./${relative(SRC, args.path).replaceAll("\\", "/").replace(/\.ts$/, ".js")}`;
      return {
        contents: source.replaceAll(
          "import.meta.url",
          `new URL(${JSON.stringify(built)}, import.meta.url).href`,
        ),
        loader: "ts",
      };
    });
  },
};

for (const name of readdirSync(DIST)) {
  if (name.startsWith("cli-chunk-")) rmSync(join(DIST, name));
}

await build({
  // The library and its testing kit are entries too, sharing the command's chunks: a plugin
  // that imports `switchyard` into a running command gets the same modules (one copy of each
  // class and registry), not a second copy beside the bundle.
  entryPoints: {
    cli: join(SRC, "cli.ts"),
    index: join(SRC, "index.ts"),
    "testing-kit": join(SRC, "testing/index.ts"),
  },
  outdir: DIST,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: `node${MANIFEST.engines.node.replace(/^>=/, "")}`,
  chunkNames: "cli-chunk-[hash]",
  external: EXTERNAL,
  sourcemap: true,
  // The maps name ../src/ files; stack traces need the mappings, not a copy of the source.
  sourcesContent: false,
  legalComments: "none",
  logLevel: "warning",
  plugins: [moduleUrls],
});

// `switchyard/testing` is dist/testing/index.js (package.json "exports"); its modules live in the
// bundle beside the others, one folder up, where the import.meta.url rewrite expects them.
writeFileSync(
  join(DIST, "testing/index.js"),
  '// The testing kit, bundled with the command and the library (scripts/bundle.mjs).\nexport * from "../testing-kit.js";\n',
);
