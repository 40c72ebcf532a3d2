import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { pingOnce } from "../../src/ops/redis/redis-probe.ts";
import { freePort } from "./switchyard-process.ts";

/**
 * A redis-server of the test's own, on a free port on 127.0.0.1, that the
 * test can hurt: freeze it (SIGSTOP, as a stuck host or a long fork does),
 * kill -9 and restart it on the same port, or make it refuse writes
 * (maxmemory reached under noeviction, Redis's OOM answer). It keeps an
 * append-only file fsynced on every write, as a production Redis holding a
 * queue should, so a restart loses nothing it acknowledged.
 */
export class FaultyRedis {
  readonly dir = mkdtempSync(join(tmpdir(), "switchyard-chaos-redis-"));
  #child: ChildProcess | undefined;
  #admin: Redis | undefined;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port ||= await freePort();
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--dir",
        this.dir,
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
      ],
      { stdio: "ignore" },
    );
    this.#child = child;
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if ((await pingOnce(this.url, 500)).ok) return;
      await sleep(50);
    }
    throw new Error(`redis-server on port ${this.port} did not answer PING in 10 s`);
  }

  /** An admin connection (CONFIG SET, INFO) that reconnects after a restart. */
  admin(): Redis {
    if (!this.#admin) {
      this.#admin = new Redis(this.url, { maxRetriesPerRequest: null });
      this.#admin.on("error", () => {});
    }
    return this.#admin;
  }

  /** Freezes the server for `ms` (SIGSTOP, then SIGCONT): connections stay open and nothing answers. */
  async freeze(ms: number): Promise<void> {
    this.#child?.kill("SIGSTOP");
    await sleep(ms);
    this.#child?.kill("SIGCONT");
  }

  /** kill -9, then a new redis-server on the same port and data directory. */
  async restart(downMs = 1_000): Promise<void> {
    const child = this.#child;
    if (child && child.exitCode === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    }
    await sleep(downMs);
    await this.start();
  }

  /** Every write is refused with OOM from now on (reads still answer), until `heal`. */
  async refuseWrites(): Promise<void> {
    await this.admin().config("SET", "maxmemory-policy", "noeviction");
    await this.admin().config("SET", "maxmemory", "1");
  }

  async heal(): Promise<void> {
    await this.admin().config("SET", "maxmemory", "0");
  }

  async stop(): Promise<void> {
    this.#admin?.disconnect();
    const child = this.#child;
    if (child && child.exitCode === null) {
      child.kill("SIGCONT");
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
