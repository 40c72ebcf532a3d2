/**
 * Why Switchyard could not get a Redis. Each message says what was tried and
 * how to fix it; URLs in messages have their password masked.
 */

export const INSTALL_HINT =
  "Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.";

/** An explicit URL (REDIS_URL) did not answer PING. */
export class RedisUnavailableError extends Error {
  override readonly name = "RedisUnavailableError";
  constructor(
    /** The URL with its password masked. */
    readonly url: string,
    readonly reason: string,
  ) {
    super(
      `No Redis answered at ${url}: ${reason}. Check that Redis is running there and that REDIS_URL is right, or unset REDIS_URL to use (or start) a local redis-server.`,
    );
  }
}

/** Nothing answered locally and there is no `redis-server` to start. */
export class RedisNotInstalledError extends Error {
  override readonly name = "RedisNotInstalledError";
  constructor(
    readonly binary = "redis-server",
    /** Where a running Redis was looked for first. */
    readonly probed = "127.0.0.1:6379",
  ) {
    super(`No Redis answered at ${probed} and ${binary} is not installed. ${INSTALL_HINT}`);
  }
}

/** `redis-server` started but exited, or never answered. */
export class RedisSpawnError extends Error {
  override readonly name = "RedisSpawnError";
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
