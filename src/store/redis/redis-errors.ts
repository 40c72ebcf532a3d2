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

/** The oldest Redis whose commands every script and call here uses (GETDEL, LPOP with a count, SET ... GET). */
export const MIN_REDIS_VERSION = "6.2.0";

/**
 * The Redis is older than {@link MIN_REDIS_VERSION}: some commands would
 * fail only when a person's message first needs them, so this stops
 * startup instead.
 */
export class RedisVersionError extends namedError("RedisVersionError") {
  constructor(
    /** Where the node was reached, password masked. */
    readonly where: string,
    readonly version: string,
  ) {
    super(
      `${where} runs Redis ${version}, but Switchyard needs Redis ${MIN_REDIS_VERSION} or newer (it uses GETDEL, LPOP with a count and SET ... GET). Upgrade that Redis (or the managed service's engine version), then start again.`,
    );
  }
}

/**
 * Throws {@link RedisVersionError} when an `INFO server` reply names a Redis
 * older than {@link MIN_REDIS_VERSION}. A reply without a version (INFO
 * forbidden by an ACL, or a server that does not say) passes: nothing is
 * known then, and the first command that needs more will say so itself.
 */
export function requireRedisVersion(info: string, where: string): void {
  const version = /^redis_version:(\S+)/m.exec(info)?.[1];
  if (version && olderThan(version, MIN_REDIS_VERSION)) throw new RedisVersionError(where, version);
}

function olderThan(version: string, minimum: string): boolean {
  const have = version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const need = minimum.split(".").map((part) => Number(part));
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a < b;
  }
  return false;
}
