import { fillEnvTemplate, MissingEnvError } from "../../core/config/env-template.ts";
import {
  DEFAULT_REDIS,
  formatRedisAddress,
  parseRedisAddressList,
  type RedisAddress,
  RedisAddressError,
  type RedisConfig,
} from "../../core/config/index.ts";
import { RedisTopologyError } from "./redis-errors.ts";

/**
 * Which Redis a deployment runs on. Every connection of the process is built
 * from one of these (see `RedisFactory`), so a cluster or a Sentinel master
 * group is configured once and every role (state, queue, workers, reminders)
 * follows.
 */
export type RedisTopology = SingleTopology | ClusterTopology | SentinelTopology;

export interface SingleTopology {
  readonly kind: "single";
  /** `redis://` or `rediss://`; absent: the local Redis at 127.0.0.1:6379, started if need be. */
  readonly url?: string;
  /** Used when the URL carries no password of its own. */
  readonly password?: string;
  /** TLS for a `redis://` URL (`REDIS_TLS`), as `rediss://` would: one switch for the app and KEDA. */
  readonly tls?: true;
}

interface Credentials {
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

export interface ClusterTopology extends Credentials {
  readonly kind: "cluster";
  /** Seed nodes; the rest of the cluster is discovered from them. */
  readonly nodes: readonly RedisAddress[];
  readonly natMap?: Readonly<Record<string, RedisAddress>>;
}

export interface SentinelTopology extends Credentials {
  readonly kind: "sentinel";
  readonly sentinels: readonly RedisAddress[];
  /** The master group, as in `sentinel monitor <name> ...`. */
  readonly name: string;
  readonly sentinelPassword?: string;
  readonly natMap?: Readonly<Record<string, RedisAddress>>;
}

/** The variables that choose a topology; at most one may be set. */
const TOPOLOGY_VARIABLES = ["REDIS_URL", "REDIS_CLUSTER_NODES", "REDIS_SENTINELS"] as const;

const TRUE = new Set(["1", "true", "on", "yes"]);
const FALSE = new Set(["0", "false", "off", "no"]);

/**
 * The topology from the environment, else the config file's `redis:`
 * section, else the local single Redis. A variable that chooses a topology
 * (`REDIS_URL`, `REDIS_CLUSTER_NODES`, `REDIS_SENTINELS`) replaces the
 * section's choice; `REDIS_USERNAME`, `REDIS_PASSWORD`,
 * `REDIS_SENTINEL_PASSWORD` and `REDIS_TLS` win over its keys. `${NAME}` in
 * the section is filled from `env`.
 *
 * @throws RedisTopologyError naming the variable or key and the fix.
 *
 * @example
 * topologyFrom({ REDIS_CLUSTER_NODES: "10.0.0.1:6379,10.0.0.2:6379" }, config.redis)
 * // { kind: "cluster", nodes: [{ host: "10.0.0.1", port: 6379 }, ...], tls: false }
 */
export function topologyFrom(
  env: NodeJS.ProcessEnv,
  config: RedisConfig = DEFAULT_REDIS,
): RedisTopology {
  const set = TOPOLOGY_VARIABLES.filter((name) => env[name]?.trim());
  if (set.length > 1) {
    throw new RedisTopologyError(
      `${set.join(" and ")} are both set. Set REDIS_URL for one Redis, REDIS_CLUSTER_NODES for a Redis Cluster or REDIS_SENTINELS (with REDIS_SENTINEL_NAME) for Sentinel: one of them.`,
    );
  }
  const fromConfig = (key: string, value: string | undefined) =>
    value === undefined ? undefined : fill(value, env, `redis.${key} in the config file`);
  const username = env.REDIS_USERNAME?.trim() || fromConfig("username", config.username);
  const password = env.REDIS_PASSWORD || fromConfig("password", config.password);
  const tls = tlsFrom(env, config.tls);
  const credentials = {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls,
  };
  const chosen = set[0];

  if (chosen === "REDIS_CLUSTER_NODES" || (chosen === undefined && config.cluster)) {
    const nodes =
      chosen === undefined
        ? (config.cluster as readonly RedisAddress[])
        : addressList(env, "REDIS_CLUSTER_NODES", "10.0.0.1:6379,10.0.0.2:6379");
    return {
      kind: "cluster",
      nodes,
      ...(config.natMap ? { natMap: config.natMap } : {}),
      ...credentials,
    };
  }
  if (chosen === "REDIS_SENTINELS" || (chosen === undefined && config.sentinels)) {
    const sentinels =
      chosen === undefined
        ? (config.sentinels as readonly RedisAddress[])
        : addressList(env, "REDIS_SENTINELS", "sentinel-1:26379,sentinel-2:26379");
    const name = env.REDIS_SENTINEL_NAME?.trim() || config.name;
    if (!name) {
      throw new RedisTopologyError(
        "REDIS_SENTINELS is set but REDIS_SENTINEL_NAME is not. Set it to the master group the sentinels watch (the name in `sentinel monitor <name> ...`), e.g. REDIS_SENTINEL_NAME=mymaster.",
      );
    }
    const sentinelPassword =
      env.REDIS_SENTINEL_PASSWORD ||
      fromConfig("sentinel_password", config.sentinelPassword) ||
      undefined;
    return {
      kind: "sentinel",
      sentinels,
      name,
      ...(sentinelPassword ? { sentinelPassword } : {}),
      ...(config.natMap ? { natMap: config.natMap } : {}),
      ...credentials,
    };
  }
  if (env.REDIS_SENTINEL_NAME?.trim() && chosen === undefined) {
    throw new RedisTopologyError(
      "REDIS_SENTINEL_NAME is set but REDIS_SENTINELS is not. Set REDIS_SENTINELS=host:port,host:port to the sentinels, or unset REDIS_SENTINEL_NAME.",
    );
  }
  const url = chosen === "REDIS_URL" ? env.REDIS_URL?.trim() : fromConfig("url", config.url);
  if (url !== undefined && !/^rediss?:\/\//i.test(url)) {
    throw new RedisTopologyError(
      `${chosen ?? "redis.url"} must be a redis:// or rediss:// URL, not ${JSON.stringify(maskRedisUrl(url))}. For a cluster set REDIS_CLUSTER_NODES=host:port,host:port instead.`,
    );
  }
  if (url === undefined && tls) {
    throw new RedisTopologyError(
      "REDIS_TLS is set, but TLS needs a Redis to talk to: set REDIS_URL=rediss://host:6379, REDIS_CLUSTER_NODES or REDIS_SENTINELS.",
    );
  }
  return {
    kind: "single",
    ...(url !== undefined ? { url } : {}),
    ...(password ? { password } : {}),
    ...(tls ? { tls: true as const } : {}),
  };
}

/**
 * One line for logs and `doctor`, passwords masked.
 *
 * @example
 * describeTopology({ kind: "sentinel", name: "mymaster", sentinels, tls: false })
 * // "Sentinel master group mymaster via 10.0.0.1:26379, 10.0.0.2:26379"
 */
export function describeTopology(topology: RedisTopology): string {
  switch (topology.kind) {
    case "single":
      return topology.url
        ? `Redis at ${maskRedisUrl(topology.url)}${topology.tls ? " (TLS)" : ""}`
        : "the local Redis";
    case "cluster":
      return `Redis Cluster via ${topology.nodes.map(formatRedisAddress).join(", ")}${topology.tls ? " (TLS)" : ""}`;
    case "sentinel":
      return `Sentinel master group ${topology.name} via ${topology.sentinels.map(formatRedisAddress).join(", ")}${topology.tls ? " (TLS)" : ""}`;
  }
}

/**
 * Hides the password of a Redis URL, for logs and error messages.
 *
 * @example
 * maskRedisUrl("redis://:hunter2@cache:6379/0") // "redis://:***@cache:6379/0"
 */
export function maskRedisUrl(url: string): string {
  return url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i,
    (_, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(":");
      return colon === -1 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
    },
  );
}

function addressList(env: NodeJS.ProcessEnv, name: string, example: string): RedisAddress[] {
  try {
    return parseRedisAddressList(env[name] ?? "");
  } catch (error) {
    if (!(error instanceof RedisAddressError)) throw error;
    throw new RedisTopologyError(
      `${name}: ${error.message} ${name} is a comma-separated list, e.g. ${name}=${example}.`,
    );
  }
}

function tlsFrom(env: NodeJS.ProcessEnv, configured: boolean): boolean {
  const raw = env.REDIS_TLS?.trim().toLowerCase();
  if (!raw) return configured;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw new RedisTopologyError(
    `REDIS_TLS must be on or off (1/0, true/false), not ${JSON.stringify(env.REDIS_TLS)}.`,
  );
}

function fill(value: string, env: NodeJS.ProcessEnv, where: string): string {
  try {
    return fillEnvTemplate(value, env, where);
  } catch (error) {
    if (error instanceof MissingEnvError) throw new RedisTopologyError(error.message);
    throw error;
  }
}
