import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

/**
 * A config that answers anyone's direct messages, for tests of a whole
 * process written before access control (the product's default is pairing).
 */
export const OPEN_DMS_CONFIG = fileURLToPath(
  new URL("../fixtures/access/open-dms.yaml", import.meta.url),
);

export type Role = "all" | "ingress" | "worker";

/** One line the process wrote to stderr (its pino logs), with when it arrived. */
export interface LogLine {
  readonly at: number;
  readonly text: string;
}

export interface SwitchyardProcess {
  readonly role: Role;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything written to stderr so far. */
  logs(): string;
  /** stderr split into lines, each stamped with its arrival time. */
  lines(): readonly LogLine[];
  /** Whether the process is still running. */
  alive(): boolean;
  /** Resolves with the exit code (null after a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What each role logs once it takes work. */
const READY: Record<Role, string> = {
  all: "channels started",
  ingress: "channels started",
  worker: "worker started",
};

/**
 * Starts `switchyard start --role <role>` as its own process, the way an
 * operator runs ingress and workers on separate machines, and resolves once
 * it is ready. `env` is added to this process's environment; the metrics
 * port is off unless `env` sets one.
 *
 * @example
 * const worker = await startSwitchyardProcess("worker", { REDIS_URL, SWITCHYARD_PREFIX: prefix });
 * await worker.stop("SIGKILL");
 */
export async function startSwitchyardProcess(
  role: Role,
  env: Record<string, string>,
  { readyTimeoutMs = 90_000 }: { readyTimeoutMs?: number } = {},
): Promise<SwitchyardProcess> {
  const child = spawn(process.execPath, [BIN, "start", "--role", role], {
    env: {
      ...process.env,
      SWITCHYARD_METRICS_PORT: "0",
      LOG_LEVEL: "info",
      // Chaos runs time their kills; the quiet window is tested on its own.
      SWITCHYARD_QUEUE_DEBOUNCE_MS: "0",
      SWITCHYARD_CONFIG: OPEN_DMS_CONFIG,
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let logs = "";
  let partial = "";
  const lines: LogLine[] = [];
  child.stderr?.on("data", (chunk) => {
    const text = String(chunk);
    logs += text;
    const at = Date.now();
    const parts = (partial + text).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) if (line !== "") lines.push({ at, text: line });
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`switchyard --role ${role} was not ready in ${readyTimeoutMs} ms:\n${logs}`),
      );
    }, readyTimeoutMs);
    const check = () => {
      if (!logs.includes(READY[role])) return;
      clearTimeout(timer);
      child.stderr?.off("data", check);
      resolve();
    };
    child.stderr?.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(`switchyard --role ${role} exited with ${code} before it was ready:\n${logs}`),
      );
    });
  });
  return {
    role,
    child,
    pid: child.pid as number,
    logs: () => logs,
    lines: () => lines,
    alive,
    exited,
    async stop(signal = "SIGTERM") {
      if (!alive()) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** A TCP port nothing listens on right now, for a process's HTTP receiver. */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}
