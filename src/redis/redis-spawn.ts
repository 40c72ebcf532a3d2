import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { RedisNotInstalledError, RedisSpawnError } from "./redis-errors.ts";
import { pingOnce } from "./redis-probe.ts";

export interface SpawnRedisOptions {
  /** Where the RDB snapshot and the append-only file live; created if missing. */
  readonly dataDir: string;
  /** 0 or absent picks a free port. */
  readonly port?: number;
  /** The executable; `redis-server` on PATH by default. */
  readonly binary?: string;
  /** How long redis-server may take to answer PING (loading a big AOF takes a while). */
  readonly startTimeoutMs?: number;
  /**
   * Keep the data on disk (snapshot every minute with a change, plus the
   * append-only file); true by default. Throwaway nodes (a test cluster) turn it off.
   */
  readonly persist?: boolean;
  /** A config file, read first; Sentinel needs one it can rewrite. */
  readonly configFile?: string;
  /** More `--name value` arguments, after the defaults, e.g. `["--cluster-enabled", "yes"]`. */
  readonly args?: readonly string[];
}

export interface SpawnedRedis {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly dataDir: string;
  /** Shuts redis-server down cleanly (SIGTERM: it fsyncs the AOF and saves), SIGKILL if it hangs. */
  stop(): Promise<void>;
  /** Kills redis-server at once (SIGKILL), as a crashed machine would: nothing is saved. */
  kill(): Promise<void>;
}

const OUTPUT_LINES = 20;
const STOP_GRACE_MS = 10_000;
const PORT_ATTEMPTS = 3;

/** A TCP port free on 127.0.0.1 right now (another process may take it before it is used). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", done);
  });
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === "string") throw new Error("no TCP port was assigned");
  return address.port;
}

/**
 * Starts a private `redis-server` on 127.0.0.1, persisting into `dataDir`
 * (snapshot every minute with a change, plus the append-only file), and
 * waits until it answers PING. It is stopped by `stop()`, and on process
 * exit as a backstop; a process that can be killed by a signal should still
 * call `stop()` from its signal handler.
 *
 * @example
 * const server = await spawnRedis({ dataDir: ".switchyard/redis" });
 * const redis = createRedisConnection(server.url);
 * // ...
 * await server.stop();
 */
export async function spawnRedis(options: SpawnRedisOptions): Promise<SpawnedRedis> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  // A free port can be taken between our check and redis binding it; then try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await start({ ...options, dataDir, port: options.port || (await freePort()) });
    } catch (error) {
      const raced =
        !options.port &&
        attempt < PORT_ATTEMPTS &&
        error instanceof RedisSpawnError &&
        /address already in use/i.test(error.output);
      if (!raced) throw error;
    }
  }
}

async function start(options: SpawnRedisOptions & { port: number }): Promise<SpawnedRedis> {
  const binary = options.binary ?? "redis-server";
  const { dataDir, port } = options;
  const persist = options.persist ?? true;
  const child = spawn(
    binary,
    [
      options.configFile ? [options.configFile] : [],
      ["--port", String(port)],
      ["--bind", "127.0.0.1"],
      ["--dir", dataDir],
      persist ? ["--save", "60", "1"] : ["--save", ""],
      ["--appendonly", persist ? "yes" : "no"],
      ["--daemonize", "no"],
      options.args ?? [],
    ].flat(),
    { stdio: ["ignore", "pipe", "pipe"] },
  );

  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - OUTPUT_LINES));
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);

  let failure: NodeJS.ErrnoException | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once("error", (error) => {
    failure = error;
  });
  const exited = new Promise<void>((done) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      done();
    });
  });
  const killOnExit = () => child.kill("SIGTERM");
  process.on("exit", killOnExit);

  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  try {
    for (;;) {
      if (failure?.code === "ENOENT") throw new RedisNotInstalledError(binary);
      if (failure) throw new RedisSpawnError(failure.message, lines.join("\n"));
      if (exit) {
        throw new RedisSpawnError(
          `it exited (${exit.signal ?? `code ${exit.code}`})`,
          lines.join("\n"),
        );
      }
      if ((await pingOnce(url, 250)).ok) break;
      if (Date.now() > deadline) {
        throw new RedisSpawnError(`it did not answer PING on ${url} in time`, lines.join("\n"));
      }
      await sleep(50);
    }
  } catch (error) {
    process.off("exit", killOnExit);
    if (!exit && !failure) {
      child.kill("SIGKILL");
      await exited;
    }
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    if (!exit) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    process.off("exit", killOnExit);
  };
  return {
    url,
    port,
    pid: child.pid ?? 0,
    dataDir,
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
    kill: async () => {
      if (!exit) child.kill("SIGKILL");
      await exited;
      process.off("exit", killOnExit);
    },
  };
}
