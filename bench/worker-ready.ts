/**
 * A worker's start (issue 36: "an idle worker at most 120 MB and ready
 * within 500 ms of start"): `switchyard start --role worker` from the
 * build, as a deployment runs it, with the streams bench's environment (a
 * Telegram bot on the fake Telegram Bot API, the fake model, Redis, a fresh
 * key prefix, /metrics on a free port). Ready is the spawn to its "worker
 * started" line; idle RSS is its resident memory a while after that, once
 * what it does after ready has run. Each round is a fresh process, against
 * `node -e 0` spawned the same way in the same round (node's own start).
 *
 * `BENCH_COLD_AGAINST=DIR` adds the same row for another checkout's build
 * (e.g. main's, in a `git worktree`), interleaved with this one's, so a
 * change is compared in the same run.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI } from "../src/testing/fakes/openai-server.ts";
import { startFakeTelegram } from "../src/testing/fakes/telegram-api.ts";
import { deleteKeys, freePort } from "./streams-run.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const OPEN_DMS = join(ROOT, "test/fixtures/access/open-dms.yaml");
const READY_LINE = "worker started";
/**
 * How long after ready the idle RSS is read, once what the worker does after
 * ready (loading its platform's channel) has run; `BENCH_COLD_SETTLE_MS`
 * sets it.
 */
const SETTLE_MS = Number(process.env.BENCH_COLD_SETTLE_MS ?? 2_000);
/** Prints the process's CPU time, in microseconds, on stderr as it exits. */
const REPORT_CPU = `process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write("cpu " + (u.user + u.system) + "\\n"); });`;
/** The targets. */
export const WORKER_READY_TARGET_MS = 500;
export const WORKER_IDLE_RSS_TARGET_MB = 120;

/** One start: spawn to ready (or exit, for the baseline), the CPU it took, its idle RSS. */
export interface WorkerSample {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly rssMb: number;
}

export interface WorkerCase {
  readonly name: string;
  /** The CLI to start, or undefined for `node -e 0`. */
  readonly cli?: string;
  /** Node's own flags before the CLI, e.g. `--max-semi-space-size=16`. */
  readonly nodeArgs?: readonly string[];
  readonly targets?: boolean;
}

/** The cases: the baseline, this checkout's worker, and the one of `BENCH_COLD_AGAINST`. */
export function workerCases(env: NodeJS.ProcessEnv = process.env): WorkerCase[] {
  const cases: WorkerCase[] = [
    { name: "node -e 0 (baseline)" },
    { name: "worker ready, from dist/", cli: join(ROOT, "dist/cli.js"), targets: true },
  ];
  const against = env.BENCH_COLD_AGAINST;
  if (against) {
    cases.push({ name: `worker ready, from ${against}/dist/`, cli: join(against, "dist/cli.js") });
  }
  return cases;
}

/** The fakes every worker of a run talks to, and how each gets a fresh prefix. */
export interface WorkerFakes {
  env(prefix: string, metricsPort: number): Record<string, string>;
  close(): Promise<void>;
}

export async function startWorkerFakes(): Promise<WorkerFakes> {
  const telegram = await startFakeTelegram();
  const openai = await startFakeOpenAI();
  return {
    env: (prefix, metricsPort) => ({
      REDIS_URL,
      SWITCHYARD_PREFIX: prefix,
      SWITCHYARD_CONFIG: OPEN_DMS,
      SWITCHYARD_METRICS_PORT: String(metricsPort),
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: "bench",
      SWITCHYARD_MODEL: "fake-model",
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: `${telegram.apiRoot}/`,
    }),
    async close() {
      await telegram.close();
      await openai.close();
    },
  };
}

/** Starts the case once in a fresh process and measures it; the worker is stopped after. */
export async function startOnce(c: WorkerCase, fakes: WorkerFakes): Promise<WorkerSample> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  if (c.cli === undefined) {
    // node -e 0 prints its CPU time as it exits, as cold-start.ts's baseline does.
    const started = performance.now();
    const child = spawn(process.execPath, ["--eval", REPORT_CPU], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", () => resolve());
    });
    const cpu = /cpu (\d+)/.exec(stderr)?.[1];
    const wallMs = performance.now() - started;
    return {
      wallMs,
      cpuMs: cpu === undefined ? Number.NaN : Number(cpu) / 1_000,
      rssMb: Number.NaN,
    };
  }
  const prefix = `bench-worker-ready-${process.pid}-${Date.now()}`;
  const metricsPort = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(c.nodeArgs ?? []), c.cli, "start", "--role", "worker"],
    {
      env: { ...env, ...fakes.env(prefix, metricsPort) },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    let log = "";
    const wallMs = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${log}`)), 60_000);
      child.stderr.on("data", (chunk) => {
        log = (log + String(chunk)).slice(-20_000);
        if (log.includes(READY_LINE)) {
          clearTimeout(timer);
          resolve(performance.now() - started);
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`exited before it was ready:\n${log}`));
      });
    });
    const cpuMs = cpuMsOf(child.pid);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { wallMs, cpuMs, rssMb: rssMbOf(child.pid) };
  } finally {
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
    await deleteKeys(prefix);
  }
}

/** A process's user + system CPU so far, ms, from /proc (Linux; NaN elsewhere). */
function cpuMsOf(pid: number | undefined): number {
  try {
    // The fields after the command's name (in parentheses, which may hold spaces).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    // utime and stime are the stat file's fields 14 and 15, in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** A process's resident memory now, MB (Linux; NaN elsewhere). */
function rssMbOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}
