import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CONSOLE_GREETING } from "../../src/platforms/terminal/terminal.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";

/**
 * `switchyard start` at a terminal, as a person meets it on first run: on a
 * pseudo-terminal made by util-linux `script`, which joins stdout and stderr
 * the way a terminal shows them. (Piped input, the manual's examples and
 * test/e2e/console.test.ts, prints answers alone; those tests pin that.)
 */
const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const prefixes: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

afterAll(async () => {
  const redis = connectRedis();
  for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** The environment of a first run: no model, no platform, no LOG_LEVEL. */
function firstRunEnv(prefix: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...envWithoutRedis(), ...redisEnv() };
  for (const name of Object.keys(env)) {
    if (/^(OPENAI_|SLACK_|DISCORD_|TELEGRAM_|SWITCHYARD_|LOG_LEVEL$)/.test(name)) delete env[name];
  }
  return { ...env, SWITCHYARD_PREFIX: prefix, SWITCHYARD_METRICS_PORT: "0" };
}

describe("switchyard start at a terminal", () => {
  it("greets once, prompts, answers /help, keeps JSON logs off the screen, and quits on Ctrl-D", async () => {
    const prefix = uniquePrefix("tty");
    prefixes.push(prefix);
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} start`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      env: firstRunEnv(prefix),
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.push(child);
    let screen = "";
    const waiters: (() => void)[] = [];
    child.stdout.on("data", (d) => {
      screen += String(d);
      for (const wake of waiters.splice(0)) wake();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const shows = async (text: string) => {
      while (!screen.includes(text)) {
        if (child.exitCode !== null) throw new Error(`exited before showing ${text}:\n${screen}`);
        await new Promise<void>((wake) => waiters.push(wake));
      }
    };

    await shows(`${CONSOLE_GREETING}\r\n`);
    await shows("> ");
    child.stdin.write("/help\r");
    await shows("Commands you can use here:");
    await shows("Tools: 12 of 13 tools available");
    child.stdin.write("\x04");
    expect(await exited).toBe(0);

    expect(screen.split(CONSOLE_GREETING)).toHaveLength(2);
    expect(CONSOLE_GREETING).toMatch(/Type a message.*\/help.*Ctrl-D.*SLACK_BOT_TOKEN/);
    // pino's JSON lines below warn ("connected to Redis", "channels started") stay off the terminal.
    expect(screen).not.toContain('"level":');
  }, 120_000);
});
