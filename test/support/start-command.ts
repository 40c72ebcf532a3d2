/**
 * The setup of the tests that run `switchyard start` the way an operator
 * does (no role, the product's own defaults) against the fake platforms and
 * model. Unlike `startSwitchyardProcess`, nothing is tuned for speed.
 *
 * @example
 * const bot = useStartCommand(); // at the top of the file: stops the process after each test
 * it("answers", async () => {
 *   const slack = await startFakeSlackApi();
 *   bot.cleanup(() => slack.close());
 *   const { logs } = await bot.start({ SLACK_BOT_TOKEN: FAKE_SLACK.botToken, ... }, "Hi.");
 * });
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "./channels.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  REDIS_URL,
  redisEnv,
  uniquePrefix,
} from "./redis.ts";
import { OPEN_DMS_CONFIG } from "./switchyard-process.ts";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

export interface StartedCommand {
  /** Everything the process wrote to stderr so far. */
  logs(): string;
  /** Resolves with the exit code (null after a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
}

export interface StartCommand {
  /** Runs after the test, after the process stopped, in the order given. */
  cleanup(...steps: (() => Promise<unknown>)[]): void;
  /**
   * Starts the fake model with `answer` scripted, then `switchyard start`
   * with `env` on a prefix of its own (DMs open, metrics port off unless
   * `env` sets one); resolves once its channels run.
   */
  start(env: Record<string, string>, answer: string): Promise<StartedCommand>;
}

/** Call once at the top of a test file: each test may start one process. */
export function useStartCommand(): StartCommand {
  let child: ChildProcess | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    const running = child;
    child = undefined;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exit = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      await exit;
    }
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return {
    cleanup: (...steps) => void cleanups.push(...steps),
    async start(env, answer) {
      const openai = await startFakeOpenAI();
      openai.script({ content: answer });
      const prefix = uniquePrefix("start");
      cleanups.push(
        () => openai.close(),
        async () => {
          const redis = connectRedis();
          await deleteKeysUnder(redis, prefix);
          redis.disconnect();
        },
      );
      const started = spawn(process.execPath, [BIN, "start"], {
        env: {
          ...process.env,
          REDIS_URL,
          SWITCHYARD_PREFIX: prefix,
          SWITCHYARD_CONFIG: OPEN_DMS_CONFIG,
          SWITCHYARD_METRICS_PORT: "0",
          OPENAI_BASE_URL: openai.url,
          OPENAI_API_KEY: "test",
          SWITCHYARD_MODEL: "fake-model",
          ...env,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = started;
      let logs = "";
      started.stderr?.on("data", (d) => {
        logs += String(d);
      });
      const exited = new Promise<number | null>((resolve) => started.once("exit", resolve));
      await until(() => (logs.includes("channels started") ? true : undefined), 30_000).catch(
        (error: Error) => {
          throw new Error(`${error.message} for "channels started":\n${logs}`);
        },
      );
      return { logs: () => logs, exited };
    },
  };
}

/** What a process that ran to its end left. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where to run, what to type, and the test's signal: a test that times out prints what the process said, then kills it. */
export interface RunOptions {
  cwd?: string;
  input?: string;
  signal?: AbortSignal;
}

/** Runs `switchyard <args>` with exactly `env`, `input` on stdin, and resolves once it exits. */
export function runToExit(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  { cwd, input = "", signal }: RunOptions = {},
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      ...(cwd ? { cwd } : {}),
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += String(d);
    });
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const timedOut = () => {
      // The test failed by its timeout, which names no cause: say where the process stands.
      console.error(
        `switchyard ${args.join(" ")} was still running when the test timed out.\n` +
          `stdout:\n${stdout.slice(-4000)}\nstderr:\n${stderr.slice(-8000)}`,
      );
      child.kill("SIGKILL");
    };
    signal?.addEventListener("abort", timedOut, { once: true });
    child.on("exit", (code) => {
      signal?.removeEventListener("abort", timedOut);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/**
 * Runs `switchyard start [args]` as a person at a terminal does: `input`
 * typed on stdin, the test Redis, the metrics port off, `env` on top;
 * resolves at exit.
 */
export function runConsoleStart(
  input: string,
  env: Record<string, string>,
  args: readonly string[] = [],
  options: Omit<RunOptions, "input"> = {},
): Promise<Finished> {
  return runToExit(
    ["start", ...args],
    { ...envWithoutRedis(), ...redisEnv(), SWITCHYARD_METRICS_PORT: "0", ...env },
    { ...options, input },
  );
}
