import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";
import { conversationKey } from "../../src/core/conversation.ts";
import { type OutboxEntry, RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import { envWithoutRedis, redisEnv } from "./redis.ts";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process wrote to stderr (its logs). */
  readonly logs: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `switchyard start --role worker` as a separate process, as an
 * operator would on another machine, and resolves once it takes work.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  /** The variables that choose its Redis; the topology under test by default. */
  redis: Record<string, string> = redisEnv(),
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, "start", "--role", "worker"], {
    env: {
      ...envWithoutRedis(),
      ...redis,
      SWITCHYARD_METRICS_PORT: "0",
      // Tests time their turns; the quiet window is tested on its own.
      SWITCHYARD_QUEUE_DEBOUNCE_MS: "0",
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let logs = "";
  child.stderr?.on("data", (chunk) => {
    logs += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not start in 90 s:\n${logs}`)),
      90_000,
    );
    const check = () => {
      if (logs.includes("worker started")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${logs}`));
    });
  });
  return {
    child,
    pid: child.pid as number,
    logs: () => logs,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Kills (SIGKILL) the worker process holding a conversation's lease: the one
 * in the middle of its turn. The lease token names the process. On a loaded
 * machine a 1.5 s lease can lapse between heartbeats and be taken again a
 * moment later, so this waits (up to 10 s) for a worker to hold it.
 */
export async function killLeaseHolder(
  redis: Redis,
  leaseKey: string,
  workers: readonly WorkerProcess[],
): Promise<WorkerProcess> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const token = await redis.get(leaseKey);
    const pid = Number(token?.split("|")[1]?.split(".")[0]);
    const victim = workers.find((w) => w.pid === pid);
    if (victim) {
      await victim.stop("SIGKILL");
      return victim;
    }
    if (Date.now() > deadline) throw new Error(`no worker holds the lease (token ${token})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The console outbox's posts once there are any (or none after `timeoutMs`). */
export async function firstPosts(
  redis: Redis,
  prefix: string,
  timeoutMs = 30_000,
): Promise<OutboxEntry[]> {
  const outbox = new RedisOutbox(redis, prefix, conversationKey);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const posts = (await outbox.read("0", 200)).filter((e) => e.kind === "post");
    if (posts.length > 0 || Date.now() > deadline) return posts;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
