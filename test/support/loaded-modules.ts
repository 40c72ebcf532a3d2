import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { envWithoutRedis, redisEnv } from "./redis.ts";

/**
 * What a fresh node loads as it runs one of Switchyard's entries (the cold
 * start's guard, test/integration/cold-import.test.ts, on the source; the
 * package test on the installed, bundled command): every package under
 * node_modules, and Switchyard's own modules under src/.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Packages a worker does not load to start (`switchyard start --role
 * worker`): each is loaded by the turn that first needs it, so an idle
 * worker stays small and ready soon (issue 36). sharp and undici cost some
 * 25 and 10 MB of a worker that never reads an image or downloads a file.
 */
export const WORKER_LOADS_LATER = [
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

export interface Loaded {
  /** Every package under node_modules, by name. */
  readonly packages: ReadonlySet<string>;
  /** Switchyard's own modules, relative to the checkout. */
  readonly modules: ReadonlySet<string>;
  /** With `until`: what had loaded when the process wrote that line. */
  readonly beforeReady?: Omit<Loaded, "beforeReady">;
}

/** The line the child writes into the list as it logs `until`. */
const READY_MARK = "-- ready --";

export interface Run {
  /** The file the list is written to. */
  readonly log: string;
  readonly argv?: readonly string[];
  readonly env?: Record<string, string>;
  /** Node's flags before the program, e.g. `["--import", "tsx/esm"]` to run src/. */
  readonly nodeArgs?: readonly string[];
  /** The folder node runs in (and resolves `nodeArgs` from); the checkout unless given. */
  readonly cwd?: string;
  /** A log line that says the process is up: it is then stopped (SIGTERM) rather than awaited. */
  readonly until?: string;
}

/** Runs `entry` (a path, with `argv` as the command line) in a fresh node, and returns what it loaded. */
export async function loadedBy(entry: string, options: Run): Promise<Loaded> {
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
    await import(${JSON.stringify(pathToFileURL(entry).href)});
  `;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    SWITCHYARD_LOADED_LOG: options.log,
  };
  delete env.NODE_OPTIONS;
  await runUntil(
    [...(options.nodeArgs ?? []), "--input-type=module", "--eval", program],
    options.cwd ?? ROOT,
    env,
    options.until,
  );
  const lines = readFileSync(options.log, "utf8").split("\n");
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
  cwd: string,
  env: NodeJS.ProcessEnv,
  until: string | undefined,
): Promise<void> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
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

/** The environment of a Telegram worker on the fake Bot API, under its own prefix, that no model answers for. */
export function telegramWorkerEnv(telegram: FakeTelegram, prefix: string): Record<string, string> {
  return {
    ...(envWithoutRedis() as Record<string, string>),
    ...redisEnv(),
    SWITCHYARD_PREFIX: prefix,
    SWITCHYARD_METRICS_PORT: "0",
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: `${telegram.apiRoot}/`,
    OPENAI_API_KEY: "test",
  };
}
