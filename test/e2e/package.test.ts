import { execFile, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRAIN_NOTES } from "../../src/queue/turn-worker.ts";
import { type RecordedRequest, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { buildIsFresh } from "../support/build-freshness.ts";
import { loadedBy, telegramWorkerEnv, WORKER_LOADS_LATER } from "../support/loaded-modules.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";

/**
 * The package as a stranger gets it: `npm pack` (which builds it through the
 * `prepare` script), the tarball installed with npm into an empty folder, then
 * used with plain node and type-checked by a consumer's strict compiler.
 *
 * Kept to under a minute of one core: the package's dependencies come from the
 * npm cache the checkout's own install filled, and are fetched into the folder
 * while the build runs, so installing the tarball itself only adds it; a build
 * newer than its sources is packed as it is. Each step has a timeout of its own.
 *
 * The bots in examples/ run from the same install: each is copied beside the
 * installed package, the TypeScript ones are type-checked, the JavaScript
 * one runs against the fake model, and the tested bot's own tests run there
 * with vitest on `switchyard/testing` as the tarball ships it.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const NPM_QUIET = ["--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];
const run = promisify(execFile);

/** The environment without a TypeScript loader a developer's shell might carry. */
function plainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  // A child vitest (the tested example) must print plain text, whatever the parent's terminal was.
  delete env.FORCE_COLOR;
  return env;
}

interface PackResult {
  filename: string;
  files: { path: string }[];
}

let work: string;
let consumer: string;
let packed: PackResult;

/**
 * `npm pack`, which builds through `prepare`, unless dist/ is newer than every
 * input (CI's `npm ci` has just built it): then the build is not run twice.
 */
async function pack(): Promise<PackResult> {
  const fresh = buildIsFresh();
  const args = [
    "pack",
    "--json",
    "--pack-destination",
    work,
    ...(fresh ? ["--ignore-scripts"] : []),
  ];
  const { stdout } = await run("npm", args, {
    cwd: ROOT,
    env: plainEnv(),
    timeout: 180_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return (JSON.parse(stdout) as PackResult[])[0] as PackResult;
}

/** The package's dependencies at the versions it pins, not saved: the tarball's install claims them. */
async function prefetchDependencies(): Promise<void> {
  const specs = Object.entries(MANIFEST.dependencies).map(([name, range]) => `${name}@${range}`);
  await run("npm", ["install", "--no-save", ...NPM_QUIET, ...specs], {
    cwd: consumer,
    env: plainEnv(),
    timeout: 180_000,
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "sy-package-"));
  consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, "package.json"),
    `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`,
  );
  [packed] = await Promise.all([pack(), prefetchDependencies()]);
  // zod beside it, as a bot author who defines tools installs it, and vitest, as one who tests the bot does.
  await run(
    "npm",
    [
      "install",
      join(work, packed.filename),
      `zod@${MANIFEST.dependencies.zod}`,
      `vitest@${MANIFEST.devDependencies.vitest}`,
      ...NPM_QUIET,
    ],
    { cwd: consumer, env: plainEnv(), timeout: 120_000 },
  );
}, 400_000);

// Removing an installed consumer (node_modules included) takes tens of seconds on a loaded disk.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 180_000);

describe.concurrent("the npm package", () => {
  it("ships dist/, bin/, the built-in skills, deploy/, README and LICENSE, and nothing else", () => {
    const paths = packed.files.map((file) => file.path);
    const allowed = /^(dist\/|bin\/|skills\/|deploy\/|README\.md$|LICENSE$|package\.json$)/;
    expect(paths.filter((path) => !allowed.test(path))).toEqual([]);
    expect(paths.filter((path) => /^(test|bench|\.ci|src)\//.test(path))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        "LICENSE",
        "README.md",
        "bin/switchyard.js",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/index.js.map",
        "dist/cli.js",
        "dist/testing/index.js",
        "dist/testing/index.d.ts",
        "deploy/slack/manifest.yaml",
        "skills/bot-guide/SKILL.md",
        "skills/meeting-notes/SKILL.md",
      ]),
    );
  });

  it("loads on plain node with no TypeScript loader installed", async () => {
    expect(existsSync(join(consumer, "node_modules", "tsx"))).toBe(false);
    const { stdout } = await run(
      process.execPath,
      ["-e", "import('switchyard').then(m => console.log(typeof m.createBot))"],
      // A cold import of the whole package: seconds alone, over 30 s on a loaded 2-core machine.
      { cwd: consumer, env: plainEnv(), timeout: 60_000 },
    );
    expect(stdout).toBe("function\n");
  }, 90_000);

  it("runs the installed switchyard command on plain node, built-in skills and tools included", async () => {
    const bin = join(consumer, "node_modules", ".bin", "switchyard");
    const opts = { cwd: consumer, env: plainEnv(), timeout: 60_000 };
    const failure = (error: { code?: number; stderr?: string }) => error;
    const [skills, tools, demo] = await Promise.all([
      run(bin, ["skills"], opts),
      // The tools command starts the MCP hub, which reads the package's own package.json.
      run(bin, ["tools", "--json"], opts),
      run(bin, ["tools", "--registry", "demo"], opts).catch(failure),
    ]);
    expect(skills.stdout).toMatch(/^2 of 2 skills available\n/);
    expect(skills.stdout).toMatch(/bot-guide\s+on\s+built-in/);
    expect((JSON.parse(tools.stdout) as { resident: string[] }).resident).toContain("current_time");
    expect(demo).toMatchObject({ code: 2 });
    expect((demo as { stderr: string }).stderr).toMatch(
      /--registry demo reads the benchmark registry from bench\/demo-registry\.ts, which only a checkout/,
    );
  }, 90_000);

  // The command is bundled (scripts/bundle.mjs): its lazy parts must still load only when they start.
  it("starts a Telegram worker from the installed command without loading sharp, undici, the model SDKs, MCP or the document readers", async () => {
    const telegram = await startFakeTelegram();
    const prefix = uniquePrefix("package-worker");
    try {
      const { packages, beforeReady } = await loadedBy(
        join(consumer, "node_modules", "switchyard", "dist", "cli.js"),
        {
          log: join(work, "worker-loaded.log"),
          cwd: consumer,
          argv: ["start", "--role", "worker"],
          env: telegramWorkerEnv(telegram, prefix),
          until: "worker started",
        },
      );
      // The list is read: the worker ran from the installed package, grammY and BullMQ beside it.
      expect(beforeReady?.packages).toContain("switchyard");
      expect(packages).toContain("grammy");
      expect(packages).toContain("bullmq");
      expect(WORKER_LOADS_LATER.filter((name) => packages.has(name))).toEqual([]);
    } finally {
      await telegram.close();
      const redis = connectRedis();
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  }, 90_000);

  it("type-checks a consumer and the TypeScript examples under tsc --strict, module NodeNext and skipLibCheck false", async () => {
    // One program for all three: the package's declarations are checked once, not three times.
    example("ts-bot");
    example("custom-channel");
    example("tested-bot");
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          skipLibCheck: false,
          noEmit: true,
          // The tested bot's parts are JavaScript, so that `switchyard test` imports them on plain node.
          allowJs: true,
        },
        include: [
          "bot.ts",
          "ts-bot/bot.ts",
          "custom-channel/bot.ts",
          "tested-bot/bot.ts",
          "tested-bot/bot.test.ts",
        ],
      }),
    );
    writeFileSync(join(consumer, "bot.ts"), CONSUMER_BOT);
    const result = await run(process.execPath, [TSC, "-p", join(consumer, "tsconfig.json")], {
      cwd: consumer,
      env: plainEnv(),
      timeout: 150_000,
    }).catch((error: { stdout: string; code: number }) => error);
    expect((result as { stdout: string }).stdout).toBe("");
    expect(result).not.toHaveProperty("code");
  }, 180_000);
});

const EXAMPLES = join(ROOT, "examples");

describe("the tested example, installed from the tarball", () => {
  it("passes its own vitest tests on plain node, through switchyard/testing as the package ships it", async () => {
    const folder = example("tested-bot");
    const vitest = join(consumer, "node_modules", "vitest", "vitest.mjs");
    const result = await run(process.execPath, [vitest, "run", "--root", folder], {
      cwd: folder,
      env: { ...plainEnv(), ...redisEnv(), LOG_LEVEL: "error", CI: "1", NO_COLOR: "1" },
      timeout: 120_000,
    }).catch((error: { stdout: string; stderr: string; code: number }) => error);
    const { stdout, stderr } = result as { stdout: string; stderr: string };
    expect(result, `${stdout}\n${stderr}`).not.toHaveProperty("code");
    expect(stdout).toMatch(/Tests\s+3 passed \(3\)/);
  }, 150_000);

  it("passes its scenario files with the installed switchyard test command, and fails one that expects otherwise", async () => {
    const folder = example("tested-bot");
    const bin = join(consumer, "node_modules", ".bin", "switchyard");
    const opts = { cwd: folder, env: { ...plainEnv(), ...redisEnv() }, timeout: 120_000 };
    const passed = await run(bin, ["test", "scenarios"], opts);
    expect(passed.stdout).toContain("2 of 2 scenarios passed.");
    writeFileSync(
      join(folder, "wrong.yaml"),
      "name: wrong\nbot: ./parts.js\nsteps:\n  - say: hi\n    expect: { answer_contains: nope }\n",
    );
    const failed = await run(bin, ["test", "wrong.yaml"], opts).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stdout: string }).stdout).toContain(
      'the answer "echo: hi" does not contain "nope"',
    );
  }, 150_000);
});

/** An example copied beside the installed package, as a person would after `npm i switchyard`. */
function example(name: string): string {
  const manifest = JSON.parse(readFileSync(join(EXAMPLES, name, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  expect(manifest.dependencies.switchyard).toBe("file:../..");
  const tsconfig = join(EXAMPLES, name, "tsconfig.json");
  if (existsSync(tsconfig)) {
    // The settings the consumer check below runs under, so the example's own build agrees with it.
    expect(JSON.parse(readFileSync(tsconfig, "utf8")).compilerOptions).toMatchObject({
      strict: true,
      module: "NodeNext",
      moduleResolution: "NodeNext",
      skipLibCheck: false,
    });
  }
  const to = join(consumer, name);
  cpSync(join(EXAMPLES, name), to, {
    recursive: true,
    filter: (path) => !/node_modules|dist$|package(-lock)?\.json$/.test(path),
  });
  return to;
}

/** The log lines of `stderr` but a worker's back-pressure notes (see STRAIN_NOTES), as they were. */
function withoutStrainNotes(stderr: string): string {
  const notes: readonly string[] = Object.values(STRAIN_NOTES);
  return stderr
    .split("\n")
    .filter((line) => {
      try {
        return !notes.includes((JSON.parse(line) as { msg?: unknown }).msg as string);
      } catch {
        return true;
      }
    })
    .join("\n");
}

/** The fake model: the first request calls the tool, the next answers with what the tool said. */
function orderResponder(request: RecordedRequest) {
  const messages: { role: string; content: string }[] = request.body.messages;
  const result = messages.findLast((message) => message.role === "tool");
  if (result === undefined) {
    return { toolCalls: [{ name: "order_status", arguments: { order: "A-1042" } }] };
  }
  return { content: `Good news: ${result.content}` };
}

describe("the JavaScript example, installed from the tarball", () => {
  it("runs the JavaScript bot on plain node: its tool is called and the answer carries its result", async () => {
    const folder = example("js-bot");
    const fake = await startFakeOpenAI({ responder: orderResponder });
    const prefix = uniquePrefix("example");
    try {
      const child = spawn(process.execPath, [join(folder, "bot.js")], {
        cwd: folder,
        env: {
          ...plainEnv(),
          ...redisEnv(),
          OPENAI_API_KEY: "test",
          OPENAI_BASE_URL: fake.url,
          SWITCHYARD_PREFIX: prefix,
          LOG_LEVEL: "warn",
        },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += String(chunk);
      });
      child.stderr.on("data", (chunk) => {
        stderr += String(chunk);
      });
      child.stdin.end("Where is my order A-1042?\n");
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      // On a loaded machine the worker says it holds new turns back while its event loop lags
      // (back-pressure, a warning by design); nothing else may reach stderr.
      expect({ code, stderr: withoutStrainNotes(stderr) }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toBe("Good news: Order A-1042 shipped on 2026-11-30 with Parcelforce.\n");
      const tools = fake.requests[0]?.body.tools.map(
        (t: { function: { name: string } }) => t.function.name,
      );
      expect(tools).toContain("order_status");
    } finally {
      await fake.close();
      const redis = connectRedis();
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  }, 60_000);
});

/**
 * A bot author's file: only the package and zod. The `@ts-expect-error` fails
 * the check if the declarations ever degrade to `any`.
 */
const CONSUMER_BOT = `import {
  type Channel,
  createOpenAIProvider,
  defineChannel,
  defineJsonSchemaTool,
  defineTool,
  parseConfig,
  startSwitchyard,
  type Switchyard,
  type SwitchyardOptions,
  takeMessage,
  ToolRegistry,
} from "switchyard";
import { z } from "zod";

const weather = defineTool({
  id: "weather",
  description: "Current weather for a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => \`Sunny in \${city.toUpperCase()}\`,
});

const echo = defineJsonSchemaTool({
  id: "echo",
  description: "Says it back.",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  execute: (args) => JSON.stringify(args),
});

const options: SwitchyardOptions = {
  redisUrl: "redis://127.0.0.1:6379",
  registry: new ToolRegistry([weather, echo]),
  provider: createOpenAIProvider({ model: "gpt-4o-mini" }),
  config: () => parseConfig("tools:\\n  weather: on\\n", "switchyard.yaml"),
};

export async function main(): Promise<Switchyard> {
  const bot = await startSwitchyard(options);
  const ctx = { signal: AbortSignal.timeout(1_000), platform: "console", workspace: "local", channel: "terminal", conversation: "main", user: "me" };
  // @ts-expect-error the declarations carry real types: weather takes a string city.
  await weather.execute({ city: 1 }, ctx);
  return bot;
}

const inbox = defineChannel({
  platform: "inbox",
  settings: (options: { limit: number }) => ({ limit: options.limit }),
  outbound: ({ limit }) => ({
    maxLength: limit,
    canEdit: false,
    post: async (_target, _text, { idempotencyKey }) => idempotencyKey,
    edit: async () => {},
    typing: async () => {},
  }),
  ingress: ({ runtime }) => ({
    start: async () => {
      const message = { platform: "inbox", workspace: "w", channel: "c", conversation: "c", user: "u", text: "hi", attachments: [], eventId: "e1", time: 0 };
      await takeMessage(runtime, message, { actor: { id: "inbox:u", isPlatformAdmin: false }, reply: async () => {} });
    },
    stop: async () => {},
  }),
});

export function channels(): Channel[] {
  // @ts-expect-error the factory takes the options its settings check reads: limit is a number.
  inbox({ limit: "many" });
  return [inbox({ limit: 4_000 })];
}
`;
