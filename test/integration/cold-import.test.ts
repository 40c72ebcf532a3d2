import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import {
  loadedBy as loadedByNode,
  type Run,
  telegramWorkerEnv,
  WORKER_LOADS_LATER,
} from "../support/loaded-modules.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

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
 * tree under test and never a stale dist/. The package test
 * (test/e2e/package.test.ts) checks the worker's list again on the
 * installed, bundled command.
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

const work = mkdtempSync(join(tmpdir(), "switchyard-cold-import-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the source's `entry` loads, run through tsx as vitest runs it. */
function loadedBy(entry: string, name: string, options: Omit<Run, "log" | "nodeArgs"> = {}) {
  return loadedByNode(join(ROOT, entry), {
    ...options,
    log: join(work, `${name}.log`),
    nodeArgs: ["--import", "tsx/esm"],
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
        env: telegramWorkerEnv(telegram, prefix),
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
