import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { STORM_EXIT_CODE } from "../../src/observability/process-guard.ts";

const SCRIPT = fileURLToPath(new URL("../support/guarded-process.ts", import.meta.url));
const TOKEN = "guard-test-token-1234567890";

interface Guarded {
  child: ChildProcess;
  port: number;
  stderr: () => string;
  /** Sends a command and waits until the process says it acted on it. */
  send(command: string): Promise<void>;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

async function startGuarded(env: Record<string, string> = {}): Promise<Guarded> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: { ...process.env, DISCORD_TOKEN: TOKEN, LOG_LEVEL: "info", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const waitFor = async (pattern: RegExp) => {
    const deadline = Date.now() + 20_000;
    while (!pattern.test(stdout)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no ${pattern} from the guarded process; stderr: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return pattern.exec(stdout) as RegExpExecArray;
  };
  const port = Number((await waitFor(/listening (\d+)/))[1]);
  let sent = 0;
  return {
    child,
    port,
    stderr: () => stderr,
    exited,
    send: async (command) => {
      sent += 1;
      child.stdin?.write(`${command}\n`);
      await waitFor(new RegExp(`done ${sent}\\n`));
    },
  };
}

const get = (port: number, path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

describe("the process guard in a real process", () => {
  it("survives what a library throws asynchronously: logs it with the token redacted, counts it, still serves /healthz", async () => {
    const p = await startGuarded();
    await p.send("throw");
    await p.send("reject");
    await p.send("reject-value");

    expect(p.child.exitCode).toBeNull();
    expect(await get(p.port, "/healthz")).toEqual({ status: 200, text: "ok" });
    const metrics = (await get(p.port, "/metrics")).text;
    expect(metrics).toContain('switchyard_process_errors_total{kind="uncaughtException"} 1');
    expect(metrics).toContain('switchyard_process_errors_total{kind="unhandledRejection"} 2');

    const lines = p
      .stderr()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.kind)).toEqual([
      "uncaughtException",
      "unhandledRejection",
      "unhandledRejection",
    ]);
    expect(lines.every((l) => l.level === 50)).toBe(true);
    expect(JSON.stringify(lines[0]?.err)).toContain("the gateway library choked on a frame");
    expect(String(lines[2]?.reason)).toContain("40060");
    expect(p.stderr()).toContain("[redacted]");
    expect(p.stderr()).not.toContain(TOKEN);
  });

  it(`exits with code ${STORM_EXIT_CODE} when errors keep coming faster than the storm rule allows, saying why`, async () => {
    const p = await startGuarded({ GUARD_MAX_ERRORS: "3", GUARD_WINDOW_MS: "60000" });
    for (let i = 0; i < 3; i++) await p.send(i % 2 ? "reject" : "throw");
    expect((await get(p.port, "/healthz")).status).toBe(200);
    p.child.stdin?.write("throw\n");
    expect(await p.exited).toBe(STORM_EXIT_CODE);
    const fatal = p
      .stderr()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.level === 60);
    expect(fatal?.msg).toBe(
      `4 uncaught errors within 60 s: this process is broken; exiting with code ${STORM_EXIT_CODE} so a supervisor restarts it`,
    );
    expect(p.stderr()).not.toContain(TOKEN);
  });

  it("forgets errors older than the window: a slow trickle never exits", async () => {
    const p = await startGuarded({ GUARD_MAX_ERRORS: "2", GUARD_WINDOW_MS: "300" });
    for (let i = 0; i < 6; i++) {
      await p.send("reject");
      await new Promise((r) => setTimeout(r, 350));
    }
    expect(p.child.exitCode).toBeNull();
    expect((await get(p.port, "/healthz")).status).toBe(200);
  });
});
