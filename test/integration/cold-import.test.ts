import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/**
 * What a bare `import("switchyard")` and `switchyard --help` load, as a
 * guard on the cold start (issue 29): the platform SDKs, the OpenTelemetry
 * SDK, sharp, the document readers, Bull Board and the MCP SDK, and the
 * pipeline's own heavier dependencies (BullMQ, ioredis, undici, openai),
 * are imported when the part that needs them starts, never with the package. A module
 * list, not a time: the machine's load moves times, an eager import of
 * discord.js is there or not. bench/cold-start.ts measures the times.
 *
 * The source runs through tsx, as vitest runs it, so the guard checks the
 * tree under test and never a stale dist/.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};
const run = promisify(execFile);

/** Packages `import("switchyard")` must not load: each is loaded by the part that needs it. */
const LOADED_LATER = [
  "@anthropic-ai/sdk",
  "@slack/bolt",
  "@slack/web-api",
  "discord.js",
  "grammy",
  "@grammyjs/auto-retry",
  "@opentelemetry/sdk-trace-node",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/instrumentation-http",
  "@opentelemetry/instrumentation-ioredis",
  "@opentelemetry/instrumentation-undici",
  "@opentelemetry/resources",
  "sharp",
  "unpdf",
  "mammoth",
  "@bull-board/api",
  "@bull-board/hono",
  "hono",
  "@hono/node-server",
  "@modelcontextprotocol/sdk",
  "file-type",
  "mdast-util-from-markdown",
  "bullmq",
  "ioredis",
  "undici",
  "openai",
  "prom-client",
  "node-html-markdown",
  "@opentelemetry/core",
  "pino",
  "yaml",
];

/**
 * Resolve hooks that append every module's URL to a file, synchronously,
 * so nothing is lost when the process exits; CommonJS modules required by
 * other CommonJS modules (which the hooks do not see) are added from the
 * require cache at exit.
 */
const HOOKS = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.SWITCHYARD_LOADED_LOG, resolved.url + "\\n");
  return resolved;
}`;

const work = mkdtempSync(join(tmpdir(), "switchyard-cold-import-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Loaded {
  /** Every package under node_modules, by name. */
  readonly packages: ReadonlySet<string>;
  /** Switchyard's own modules, relative to the checkout. */
  readonly modules: ReadonlySet<string>;
}

/** Runs `entry` (with `argv` as the command line) in a fresh node, and returns what it loaded. */
async function loadedBy(entry: string, name: string, argv: string[] = []): Promise<Loaded> {
  const log = join(work, `${name}.log`);
  const program = `
    import { register, createRequire } from "node:module";
    import { appendFileSync } from "node:fs";
    register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});
    const cache = createRequire(import.meta.url).cache;
    process.on("exit", () => appendFileSync(process.env.SWITCHYARD_LOADED_LOG, Object.keys(cache).join("\\n")));
    process.argv = [process.argv[0], "switchyard", ...${JSON.stringify(argv)}];
    await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});
  `;
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_LOADED_LOG: log };
  delete env.NODE_OPTIONS;
  await run(process.execPath, ["--import", "tsx/esm", "--input-type=module", "--eval", program], {
    cwd: ROOT,
    env,
    timeout: 60_000,
  });
  const packages = new Set<string>();
  const modules = new Set<string>();
  for (const line of readFileSync(log, "utf8").split("\n")) {
    const path = line.startsWith("file:") ? fileURLToPath(line) : line;
    const inPackage = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (inPackage?.[1]) packages.add(inPackage[1]);
    else if (path.startsWith(join(ROOT, "src"))) modules.add(relative(ROOT, path));
  }
  return { packages, modules };
}

describe("the cold start", () => {
  it("imports switchyard without any platform SDK, tracing SDK, image or document reader, Bull Board or MCP SDK", async () => {
    const { packages, modules } = await loadedBy("src/index.ts", "import");
    // The list is read: a broken recorder must not pass as "nothing heavy loaded".
    expect(modules).toContain("src/index.ts");
    expect(packages).toContain("zod");
    expect(LOADED_LATER.filter((name) => packages.has(name))).toEqual([]);
  });

  it("answers switchyard --help without loading a command or any dependency", async () => {
    const { packages, modules } = await loadedBy("src/cli.ts", "help", ["--help"]);
    expect([...modules]).toEqual(["src/cli.ts"]);
    expect(Object.keys(MANIFEST.dependencies).filter((name) => packages.has(name))).toEqual([]);
  });
});
