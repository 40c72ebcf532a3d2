import { type ChildProcessByStdio, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { RedisNotInstalledError, RedisSpawnError } from "../../store/redis/redis-errors.ts";
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

type StartOptions = SpawnRedisOptions & { readonly port: number };

async function start(options: StartOptions): Promise<SpawnedRedis> {
  const binary = options.binary ?? "redis-server";
  const { dataDir, port } = options;
  const child = new RedisChild(binary, serverArgs(options));
  const url = `redis://127.0.0.1:${port}`;
  await child.answering(url, options.startTimeoutMs ?? 15_000);
  return {
    url,
    port,
    pid: child.pid,
    dataDir,
    stop: () => child.stop(),
    kill: () => child.kill(),
  };
}

/** redis-server's command line: the config file, then our defaults, then the caller's own. */
function serverArgs(options: StartOptions): string[] {
  const persist = options.persist ?? true;
  return [
    options.configFile ? [options.configFile] : [],
    ["--port", String(options.port)],
    ["--bind", "127.0.0.1"],
    ["--dir", options.dataDir],
    persist ? ["--save", "60", "1"] : ["--save", ""],
    ["--appendonly", persist ? "yes" : "no"],
    ["--daemonize", "no"],
    options.args ?? [],
  ].flat();
}

/**
 * One redis-server child: the last lines it printed (for a failure's
 * message), how it ended, and a SIGTERM on our own exit as a backstop.
 */
class RedisChild {
  readonly #binary: string;
  readonly #child: ChildProcessByStdio<null, Readable, Readable>;
  readonly #lines: string[] = [];
  #failure: NodeJS.ErrnoException | undefined;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #exited: Promise<void>;
  readonly #killOnExit = () => this.#child.kill("SIGTERM");
  #stopping: Promise<void> | undefined;

  constructor(binary: string, args: readonly string[]) {
    this.#binary = binary;
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    this.#child = child;
    const keep = (chunk: Buffer) => {
      this.#lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      this.#lines.splice(0, Math.max(0, this.#lines.length - OUTPUT_LINES));
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", (error) => {
      this.#failure = error;
    });
    this.#exited = new Promise<void>((done) => {
      child.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        done();
      });
    });
    process.on("exit", this.#killOnExit);
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /**
   * Resolves once the server answers PING at `url`. Throws, with what it
   * printed, when it cannot start, exits, or stays silent past the timeout;
   * a server still running then is killed.
   */
  async answering(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        this.#throwIfEnded();
        if ((await pingOnce(url, 250)).ok) return;
        if (Date.now() > deadline) {
          throw new RedisSpawnError(`it did not answer PING on ${url} in time`, this.#output());
        }
        await sleep(50);
      }
    } catch (error) {
      process.off("exit", this.#killOnExit);
      if (!this.#exit && !this.#failure) {
        this.#child.kill("SIGKILL");
        await this.#exited;
      }
      throw error;
    }
  }

  #throwIfEnded(): void {
    const failure = this.#failure;
    if (failure?.code === "ENOENT") throw new RedisNotInstalledError(this.#binary);
    if (failure) throw new RedisSpawnError(failure.message, this.#output());
    const exit = this.#exit;
    if (exit) {
      throw new RedisSpawnError(
        `it exited (${exit.signal ?? `code ${exit.code}`})`,
        this.#output(),
      );
    }
  }

  #output(): string {
    return this.#lines.join("\n");
  }

  /** SIGTERM (the server fsyncs and saves), SIGKILL after a grace period; once, however often it is called. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      if (!this.#exit) {
        this.#child.kill("SIGTERM");
        const timer = setTimeout(() => this.#child.kill("SIGKILL"), STOP_GRACE_MS);
        await this.#exited;
        clearTimeout(timer);
      }
      process.off("exit", this.#killOnExit);
    })();
    return this.#stopping;
  }

  async kill(): Promise<void> {
    if (!this.#exit) this.#child.kill("SIGKILL");
    await this.#exited;
    process.off("exit", this.#killOnExit);
  }
}
