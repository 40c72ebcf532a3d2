import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";

/**
 * What a bare `import("switchyard")` and `switchyard --help` load, as a
 * guard on the cold start (issue 29), and what a worker loads to start
 * (issue 36): the platform SDKs, the OpenTelemetry
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
 * Packages a worker does not load to start (`switchyard start --role
 * worker`): each is loaded by the turn that first needs it, so an idle
 * worker stays small and ready soon (issue 36). sharp and undici cost some
 * 25 and 10 MB of a worker that never reads an image or downloads a file.
 */
const WORKER_LOADS_LATER = [
  "@anthropic-ai/sdk",
  "@slack/bolt",
  "@slack/web-api",
  "discord.js",
  "@opentelemetry/sdk-trace-node",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/resources",
  "sharp",
  "undici",
  "unpdf",
  "mammoth",
  "file-type",
  "node-html-markdown",
  "@bull-board/api",
  "@bull-board/hono",
  "@modelcontextprotocol/sdk",
  "openai",
];

/**
 * Switchyard's own modules a worker does not load before it is ready: the
 * ingress's parts. The console's conversation loop brings every chat command
 * with it, and hooks are served where messages come in: some 35 modules a
 * worker compiled before it said "worker started" (issue 36). A Telegram
 * worker loads the chat commands after, with the Telegram channel.
 */
const WORKER_READY_WITHOUT = [
  "src/platforms/terminal/channel.ts",
  "src/ingress/take-message.ts",
  "src/ingress/chat-commands.ts",
  "src/ingress/commands/tools-command.ts",
  "src/runtime/hooks.ts",
  "src/ingress/hook-endpoint.ts",
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
  /** With `until`: what had loaded when the process wrote that line. */
  readonly beforeReady?: Omit<Loaded, "beforeReady">;
}

/** The line the child writes into the list as it logs `until`. */
const READY_MARK = "-- ready --";

interface Run {
  readonly argv?: readonly string[];
  readonly env?: Record<string, string>;
  /** A log line that says the process is up: it is then stopped (SIGTERM) rather than awaited. */
  readonly until?: string;
}

/** Runs `entry` (with `argv` as the command line) in a fresh node, and returns what it loaded. */
async function loadedBy(entry: string, name: string, options: Run = {}): Promise<Loaded> {
  const log = join(work, `${name}.log`);
  const program = `
    import { register, createRequire } from "node:module";
    import { appendFileSync } from "node:fs";
    register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});
    const cache = createRequire(import.meta.url).cache;
    process.on("exit", () => appendFileSync(process.env.SWITCHYARD_LOADED_LOG, Object.keys(cache).join("\\n")));
    // The moment it says it is up, in the list: the logger writes its line synchronously.
    const until = ${JSON.stringify(options.until ?? null)};
    const write = process.stderr.write.bind(process.stderr);
    let marked = false;
    process.stderr.write = (chunk, ...rest) => {
      if (until !== null && !marked && String(chunk).includes(until)) {
        marked = true;
        appendFileSync(process.env.SWITCHYARD_LOADED_LOG, ${JSON.stringify(`${READY_MARK}\n`)});
      }
      return write(chunk, ...rest);
    };
    process.argv = [process.argv[0], "switchyard", ...${JSON.stringify(options.argv ?? [])}];
    await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});
  `;
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, SWITCHYARD_LOADED_LOG: log };
  delete env.NODE_OPTIONS;
  await runUntil(
    ["--import", "tsx/esm", "--input-type=module", "--eval", program],
    env,
    options.until,
  );
  const lines = readFileSync(log, "utf8").split("\n");
  const mark = lines.indexOf(READY_MARK);
  return {
    ...listed(lines),
    ...(mark === -1 ? {} : { beforeReady: listed(lines.slice(0, mark)) }),
  };
}

/** The packages and own modules among a list's lines (URLs, or paths from the require cache). */
function listed(lines: readonly string[]): Omit<Loaded, "beforeReady"> {
  const packages = new Set<string>();
  const modules = new Set<string>();
  for (const line of lines) {
    const path = line.startsWith("file:") ? fileURLToPath(line) : line;
    const inPackage = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (inPackage?.[1]) packages.add(inPackage[1]);
    else if (path.startsWith(join(ROOT, "src"))) modules.add(relative(ROOT, path));
  }
  return { packages, modules };
}

/** Runs node with `args` to its end, or until it logs `until` and then stops on SIGTERM. */
function runUntil(
  args: string[],
  env: NodeJS.ProcessEnv,
  until: string | undefined,
): Promise<void> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  let stopping = false;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no ${until ?? "exit"} in 60 s:\n${stderr}`));
    }, 60_000);
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
      // Once: a second SIGTERM would end it before its graceful stop wrote the list.
      if (until !== undefined && !stopping && stderr.includes(until)) {
        stopping = true;
        child.kill("SIGTERM");
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`exited with ${code}:\n${stderr}`));
    });
  });
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
    const { packages, modules } = await loadedBy("src/cli.ts", "help", { argv: ["--help"] });
    expect([...modules]).toEqual(["src/cli.ts"]);
    expect(Object.keys(MANIFEST.dependencies).filter((name) => packages.has(name))).toEqual([]);
  });

  it("starts a Telegram worker without sharp, undici, the model SDKs, the tracing SDK, MCP or the document readers, and is ready before it loads the chat commands or hooks", async () => {
    const telegram = await startFakeTelegram();
    const prefix = uniquePrefix("cold-worker");
    try {
      const { packages, modules, beforeReady } = await loadedBy("src/cli.ts", "worker", {
        argv: ["start", "--role", "worker"],
        env: {
          ...(envWithoutRedis() as Record<string, string>),
          ...redisEnv(),
          SWITCHYARD_PREFIX: prefix,
          SWITCHYARD_METRICS_PORT: "0",
          TELEGRAM_BOT_TOKEN: telegram.token,
          TELEGRAM_API_ROOT: `${telegram.apiRoot}/`,
          OPENAI_API_KEY: "test",
        },
        until: "worker started",
      });
      // Stopping waits for the Telegram channel the worker loads as it starts: the list holds it.
      expect(modules).toContain("src/platforms/telegram/channel.ts");
      expect(packages).toContain("grammy");
      expect(packages).toContain("bullmq");
      expect(WORKER_LOADS_LATER.filter((name) => packages.has(name))).toEqual([]);
      // Ready first: the chat commands come after, with the Telegram channel's ingress code.
      expect(beforeReady?.modules).toContain("src/queue/turn-worker.ts");
      expect(WORKER_READY_WITHOUT.filter((path) => beforeReady?.modules.has(path))).toEqual([]);
    } finally {
      await telegram.close();
      const redis = connectRedis();
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  });
});
