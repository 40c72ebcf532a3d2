import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { freePort, type SpawnedRedis, spawnRedis } from "../../src/ops/redis/redis-spawn.ts";

export interface LocalSentinels {
  /** The master group's name, as REDIS_SENTINEL_NAME takes it. */
  readonly name: string;
  /** `host:port` of every sentinel, as REDIS_SENTINELS takes them. */
  readonly sentinels: readonly string[];
  readonly master: SpawnedRedis;
  readonly replicas: readonly SpawnedRedis[];
  /** The port the sentinels name as master right now. */
  currentMasterPort(): Promise<number>;
  stop(): Promise<void>;
}

export interface LocalSentinelOptions {
  readonly name?: string;
  readonly replicas?: number;
  readonly sentinels?: number;
  /** How long a master may be silent before the sentinels call it down. */
  readonly downAfterMs?: number;
  readonly readyTimeoutMs?: number;
}

/**
 * A throwaway Sentinel deployment on 127.0.0.1: one master, `replicas`
 * replicas (1 by default) and `sentinels` sentinels (3, quorum 2), on free
 * ports. Master and replicas keep an append-only file (fsync on every write),
 * so what a node acknowledged survives it. Resolves once the replicas are in
 * sync and every sentinel sees the replicas and the other sentinels; on any
 * failure, what was started is stopped before it rejects.
 */
export async function startLocalSentinels(
  options: LocalSentinelOptions = {},
): Promise<LocalSentinels> {
  const name = options.name ?? "switchyard";
  const dir = await mkdtemp(join(tmpdir(), "switchyard-sentinel-"));
  const started: SpawnedRedis[] = [];
  const stop = async () => {
    await Promise.all(started.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const durable = ["--appendfsync", "always"];
    const master = await spawnRedis({ dataDir: join(dir, "master"), args: durable });
    started.push(master);
    const replicas: SpawnedRedis[] = [];
    for (let i = 0; i < (options.replicas ?? 1); i++) {
      const replica = await spawnRedis({
        dataDir: join(dir, `replica${i}`),
        args: [...durable, "--replicaof", "127.0.0.1", String(master.port)],
      });
      started.push(replica);
      replicas.push(replica);
    }
    const sentinelServers: SpawnedRedis[] = [];
    for (let i = 0; i < (options.sentinels ?? 3); i++) {
      const sentinelDir = join(dir, `sentinel${i}`);
      await mkdir(sentinelDir, { recursive: true });
      const configFile = join(sentinelDir, "sentinel.conf");
      // Sentinel rewrites this file as it learns the topology, so it lives in a folder of its own.
      await writeFile(
        configFile,
        [
          `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1_000}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          "",
        ].join("\n"),
      );
      const sentinel = await spawnRedis({
        dataDir: sentinelDir,
        port: await freePort(),
        persist: false,
        configFile,
        args: ["--sentinel"],
      });
      started.push(sentinel);
      sentinelServers.push(sentinel);
    }
    await waitFor(options.readyTimeoutMs ?? 20_000, "the replicas to sync", async () => {
      for (const replica of replicas) {
        const info = await command(replica.port, "INFO", "replication");
        if (!/master_link_status:up/.test(info)) return false;
      }
      return true;
    });
    const replicaCount = replicas.length;
    const others = sentinelServers.length - 1;
    await waitFor(options.readyTimeoutMs ?? 20_000, "the sentinels to agree", async () => {
      for (const sentinel of sentinelServers) {
        const seen = await sentinelView(sentinel.port, name);
        if (seen.replicas < replicaCount || seen.sentinels < others) return false;
      }
      return true;
    });
    const firstSentinel = sentinelServers[0] as SpawnedRedis;
    return {
      name,
      sentinels: sentinelServers.map((s) => `127.0.0.1:${s.port}`),
      master,
      replicas,
      async currentMasterPort() {
        const reply = (await call(firstSentinel.port, [
          "SENTINEL",
          "get-master-addr-by-name",
          name,
        ])) as string[];
        return Number(reply[1]);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function sentinelView(
  port: number,
  name: string,
): Promise<{ replicas: number; sentinels: number }> {
  const replicas = (await call(port, ["SENTINEL", "replicas", name])) as unknown[];
  const sentinels = (await call(port, ["SENTINEL", "sentinels", name])) as unknown[];
  return { replicas: replicas.length, sentinels: sentinels.length };
}

async function command(port: number, ...args: string[]): Promise<string> {
  return String(await call(port, args));
}

async function call(port: number, [name, ...args]: string[]): Promise<unknown> {
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return await client.call(name as string, ...args);
  } finally {
    client.disconnect();
  }
}

async function waitFor(timeoutMs: number, what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await sleep(100);
  }
}
