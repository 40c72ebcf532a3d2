import type { ClusterOptions, Redis, RedisOptions } from "ioredis";
import { registerSecret } from "../../observability/secrets.ts";
import { ioredis } from "./ioredis.ts";
import type { RedisTopology } from "./redis-topology.ts";
import { describeTopology } from "./redis-topology.ts";

/**
 * What a connection is for. Each role gets the options it needs and names
 * itself (`CLIENT SETNAME switchyard:<role>`), so `CLIENT LIST` on a busy
 * node says who holds which socket.
 *
 * - `state`: the store's reads and writes, auto-pipelined (many conversations'
 *   commands share one socket write per tick).
 * - `queue`: BullMQ's producer side and the inbox pushes it orders behind.
 * - `worker`: BullMQ's workers (each duplicates it for its blocking reads).
 * - `reminders`: the reminder worker, separate so a burst of reminders never
 *   queues behind turns.
 * - `schedules`: the schedule tick queue and its worker, for the same reason.
 * - `reader`: a client that blocks on `XREAD` (the console).
 * - `tools`: memory and reminder tools; connects on first use.
 * - `check`: the startup check's client, kept open to watch the link.
 * - `signals`: subscribed to stop and interrupt signals for running turns.
 */
export type ConnectionRole =
  | "check"
  | "state"
  | "queue"
  | "worker"
  | "reminders"
  | "schedules"
  | "reader"
  | "tools"
  | "signals";

/**
 * Builds every Redis connection of a process from one topology: a single
 * node, a Redis Cluster (ioredis `Cluster`, with NAT mapping and TLS), or a
 * Sentinel master group (ioredis follows failovers).
 *
 * Every connection has `maxRetriesPerRequest: null`: BullMQ requires it of
 * its workers, and for the store it means a command waits out a reconnect or
 * a failover instead of failing a turn.
 *
 * A `Cluster` answers every command a `Redis` does for keys that share a
 * slot, and every key Switchyard builds does (see `KeyScheme`), so `create`
 * types both as `Redis`: the store, channels and tools take either without
 * knowing the topology. Code that must tell (SCAN, CLUSTER INFO) checks
 * `redis.isCluster`.
 *
 * @example
 * const factory = new RedisFactory({ kind: "cluster", nodes, tls: false });
 * const state = factory.create("state");
 * const worker = factory.create("worker");
 */
export class RedisFactory {
  constructor(readonly topology: RedisTopology) {
    registerSecret(topology.kind === "single" ? passwordOf(topology.url) : undefined);
    registerSecret(topology.password);
    if (topology.kind === "sentinel") registerSecret(topology.sentinelPassword);
  }

  /** A single node at `url` (a test, a bench, or a caller that only has a URL). */
  static single(url: string): RedisFactory {
    return new RedisFactory({ kind: "single", url });
  }

  get isCluster(): boolean {
    return this.topology.kind === "cluster";
  }

  /** One line for logs, passwords masked. */
  describe(): string {
    return describeTopology(this.topology);
  }

  create(role: ConnectionRole, extra: RedisOptions = {}): Redis {
    const connectionName = `switchyard:${role}`;
    const base: RedisOptions = {
      maxRetriesPerRequest: null,
      connectionName,
      ...(role === "tools" ? { lazyConnect: true } : {}),
      ...extra,
    };
    const pipelined = role === "state";
    const topology = this.topology;
    switch (topology.kind) {
      case "single": {
        const url = topology.url ?? "redis://127.0.0.1:6379";
        const password =
          !passwordOf(url) && topology.password ? { password: topology.password } : {};
        return new (ioredis().Redis)(url, {
          ...password,
          ...(topology.tls ? { tls: {} } : {}),
          ...(pipelined ? { enableAutoPipelining: true } : {}),
          ...base,
        });
      }
      case "sentinel":
        return new (ioredis().Redis)({
          sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
          name: topology.name,
          ...credentials(topology),
          ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
          ...(topology.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
          ...(topology.natMap ? { natMap: { ...topology.natMap } } : {}),
          // Told of +switch-master at once, instead of finding out from a dead socket.
          failoverDetector: true,
          ...(pipelined ? { enableAutoPipelining: true } : {}),
          ...base,
        });
      case "cluster": {
        const { lazyConnect, ...redisOptions } = base;
        const options: ClusterOptions = {
          redisOptions: { ...credentials(topology), ...redisOptions },
          ...(lazyConnect ? { lazyConnect } : {}),
          ...(topology.natMap ? { natMap: { ...topology.natMap } } : {}),
          // With TLS the certificate names the host: connect by the name, not a resolved IP (ElastiCache, Memorystore).
          ...(topology.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
          ...(pipelined ? { enableAutoPipelining: true } : {}),
          // A failover or a slot migration is seconds of CLUSTERDOWN/MOVED; wait it out, do not fail the command.
          retryDelayOnClusterDown: 300,
          retryDelayOnFailover: 300,
          retryDelayOnTryAgain: 300,
          slotsRefreshTimeout: 2_000,
        };
        return new (ioredis().Cluster)(
          topology.nodes.map(({ host, port }) => ({ host, port })),
          options,
        ) as unknown as Redis;
      }
    }
  }
}

function credentials(topology: {
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}): RedisOptions {
  return {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
    ...(topology.tls ? { tls: {} } : {}),
  };
}

function passwordOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
