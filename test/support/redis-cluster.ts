import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort, type SpawnedRedis, spawnRedis } from "../../src/ops/redis/redis-spawn.ts";

const run = promisify(execFile);

export interface LocalCluster {
  /** `host:port` of every master, in the form REDIS_CLUSTER_NODES takes. */
  readonly nodes: readonly string[];
  readonly servers: readonly SpawnedRedis[];
  stop(): Promise<void>;
}

export interface LocalClusterOptions {
  readonly masters?: number;
  /** How long the nodes may take to agree (cluster_state:ok on every node). */
  readonly readyTimeoutMs?: number;
}

/**
 * A throwaway Redis Cluster on 127.0.0.1: `masters` nodes (3 by default) on
 * free ports, no replicas, nothing written to disk, slots spread by
 * `redis-cli --cluster create`. Resolves once every node says
 * `cluster_state:ok` and knows every other; on any failure, the nodes already
 * started are stopped before it rejects.
 *
 * @example
 * const cluster = await startLocalCluster();
 * process.env.REDIS_CLUSTER_NODES = cluster.nodes.join(",");
 * // ...
 * await cluster.stop();
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const masters = options.masters ?? 3;
  const dir = await mkdtemp(join(tmpdir(), "switchyard-cluster-"));
  const servers: SpawnedRedis[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      servers.push(
        await spawnRedis({
          dataDir: join(dir, `node${i}`),
          persist: false,
          // The bus port is port + 10000 unless named; a free port near 65535 has no such neighbour.
          args: [
            ["--cluster-enabled", "yes"],
            ["--cluster-config-file", "nodes.conf"],
            ["--cluster-port", String(await freePort())],
            ["--cluster-node-timeout", "3000"],
          ].flat(),
        }),
      );
    }
    const nodes = servers.map((server) => `127.0.0.1:${server.port}`);
    await run(
      "redis-cli",
      ["--cluster", "create", ...nodes, "--cluster-replicas", "0", "--cluster-yes"],
      { timeout: 30_000 },
    );
    await waitForAgreement(servers, masters, options.readyTimeoutMs ?? 20_000);
    return { nodes, servers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Every node reports `cluster_state:ok`, all slots assigned, and every master known. */
async function waitForAgreement(
  servers: readonly SpawnedRedis[],
  masters: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const infos = await Promise.all(servers.map((server) => clusterInfo(server.port)));
    const ready = infos.every(
      (info) =>
        info.cluster_state === "ok" &&
        info.cluster_slots_assigned === "16384" &&
        Number(info.cluster_known_nodes) >= masters,
    );
    if (ready) return;
    last = JSON.stringify(infos.map((info) => info.cluster_state));
    if (Date.now() > deadline) {
      throw new Error(`the local cluster did not become ready in ${timeoutMs} ms: states ${last}`);
    }
    await sleep(100);
  }
}

async function clusterInfo(port: number): Promise<Record<string, string>> {
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const text = String(await client.call("CLUSTER", "INFO"));
    return Object.fromEntries(
      text
        .split(/\r?\n/)
        .filter((line) => line.includes(":"))
        .map((line) => line.split(":", 2) as [string, string]),
    );
  } finally {
    client.disconnect();
  }
}
