import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";

/**
 * A library bot whose start fails (its own tool takes a built-in's id), run
 * as its author runs it: `node bot.ts` in a process of its own. A failed
 * start must end the process with the error, or hand the error to the
 * author's try/catch with nothing left open.
 */
const SCRIPT = fileURLToPath(new URL("../support/failing-bot.ts", import.meta.url));
/** Far above a start that fails on a loaded machine (tsx compiling src/ takes most of it), far below "hangs". */
const EXIT_BOUND_MS = 90_000;
const prefixes: string[] = [];

afterAll(async () => {
  const redis = connectRedis();
  for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

interface Ended {
  /** The exit code; "still running" when the bound passed first (the process is then killed). */
  code: number | null | "still running";
  stdout: string;
  stderr: string;
}

function runFailingBot(mode: "uncaught" | "caught"): Promise<Ended> {
  const prefix = uniquePrefix("libstart");
  prefixes.push(prefix);
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: {
      ...envWithoutRedis(),
      ...redisEnv(),
      SWITCHYARD_PREFIX: prefix,
      FAILING_BOT: mode,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  return new Promise((resolve) => {
    const bound = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ code: "still running", stdout, stderr });
    }, EXIT_BOUND_MS);
    child.once("exit", (code) => {
      clearTimeout(bound);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("a library bot whose start fails", () => {
  it("exits non-zero with the error's message when nobody catches it", async () => {
    const ended = await runFailingBot("uncaught");
    expect(ended.code, ended.stderr).not.toBe("still running");
    expect(ended.code).not.toBe(0);
    expect(ended.stderr).toContain('A tool with id "current_time" is already registered');
    expect(ended.stderr).not.toContain("it keeps running");
  }, 120_000);

  it("rejects into the author's try/catch and leaves nothing open, so the process ends by itself", async () => {
    const ended = await runFailingBot("caught");
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toContain("caught DuplicateToolError");
    expect(ended.stdout).toContain("open []");
    // The fix named is one a createBot user can apply: registry.unregister is out of their reach.
    expect(ended.stdout).not.toContain("registry.unregister");
    expect(ended.stdout).toContain("builtins:");
  }, 120_000);
});
