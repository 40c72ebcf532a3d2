import { namedError } from "../../core/named-error.ts";

/**
 * Why Switchyard could not get a Redis. Each message says what was tried and
 * how to fix it; URLs in messages have their password masked.
 */

export const INSTALL_HINT =
  "Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.";

/** A configured Redis (REDIS_URL, a cluster, Sentinel) did not answer the startup check. */
export class RedisUnavailableError extends namedError("RedisUnavailableError") {
  constructor(
    /** The URL with its password masked, or the topology's description. */
    readonly url: string,
    readonly reason: string,
    /** The variable that configured it. */
    readonly setting: "REDIS_URL" | "REDIS_CLUSTER_NODES" | "REDIS_SENTINELS" = "REDIS_URL",
  ) {
    super(
      setting === "REDIS_URL"
        ? `No Redis answered at ${url}: ${reason}. Check that Redis is running there and that REDIS_URL is right, or unset REDIS_URL to use (or start) a local redis-server.`
        : `No usable Redis at ${url}: ${reason}. Check that Redis is running there and that ${setting} (or the redis: section of the config file) is right.`,
    );
  }
}

/** Nothing answered locally and there is no `redis-server` to start. */
export class RedisNotInstalledError extends namedError("RedisNotInstalledError") {
  constructor(
    readonly binary = "redis-server",
    /** Where a running Redis was looked for first. */
    readonly probed = "127.0.0.1:6379",
  ) {
    super(`No Redis answered at ${probed} and ${binary} is not installed. ${INSTALL_HINT}`);
  }
}

/** `redis-server` started but exited, or never answered. */
export class RedisSpawnError extends namedError("RedisSpawnError") {
  constructor(
    readonly reason: string,
    /** The last lines redis-server printed, which usually say why. */
    readonly output: string,
  ) {
    super(
      `redis-server could not be started: ${reason}.${output ? `\nIts last output:\n${output}` : ""}\nFix the problem above, or set REDIS_URL=redis://host:6379 to use a Redis you run yourself.`,
    );
  }
}

/** The settings that choose a Redis contradict each other or cannot be read. */
export class RedisTopologyError extends namedError("RedisTopologyError") {}

/**
 * A single-node URL reaches a node of a Redis Cluster: commands for keys on
 * other nodes would fail with MOVED, so this stops startup instead.
 */
export class RedisClusterModeError extends namedError("RedisClusterModeError") {
  constructor(
    /** Where the node was reached, password masked. */
    readonly where: string,
    /** What configured a single Redis (`REDIS_URL`, `redis.url`); undefined: nothing did (the local default). */
    readonly setting: string | undefined,
  ) {
    const configured = setting
      ? `${setting} configures a single Redis`
      : "no Redis is configured, so it was used as a single Redis";
    super(
      `${where} is a node of a Redis Cluster, but ${configured}: every key stored on another node would fail with MOVED. Set REDIS_CLUSTER_NODES=host:port,host:port (or cluster: [host:port, ...] under redis: in the config file) to the cluster's nodes${setting ? `, and unset ${setting}` : ""}.`,
    );
  }
}

/** Cluster nodes were configured, but what answered is not a healthy cluster. */
export class RedisClusterStateError extends namedError("RedisClusterStateError") {}
