import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MIN_REDIS_VERSION,
  RedisVersionError,
  requireRedisVersion,
} from "../../src/store/redis/redis-errors.ts";

const info = (version: string) =>
  `# Server\r\nredis_version:${version}\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n`;

describe("the startup check's Redis version", () => {
  it("stops a Redis older than 6.2 and takes 6.2 and every later one", () => {
    fc.assert(
      fc.property(fc.nat(12), fc.nat(12), fc.nat(30), (major, minor, patch) => {
        const version = `${major}.${minor}.${patch}`;
        const old = major < 6 || (major === 6 && minor < 2);
        const check = () => requireRedisVersion(info(version), "redis://cache:6379");
        if (old) expect(check).toThrow(RedisVersionError);
        else expect(check).not.toThrow();
      }),
    );
  });

  it("names the server, its version, what is needed and the fix", () => {
    expect(() => requireRedisVersion(info("5.0.7"), "Redis at redis://cache:6379")).toThrow(
      `Redis at redis://cache:6379 runs Redis 5.0.7, but Switchyard needs Redis ${MIN_REDIS_VERSION} or newer (it uses GETDEL, LPOP with a count and SET ... GET). Upgrade that Redis (or the managed service's engine version), then start again.`,
    );
  });

  it("lets a server through that does not say its version (INFO forbidden)", () => {
    expect(() => requireRedisVersion("", "redis://cache:6379")).not.toThrow();
    expect(() => requireRedisVersion("# Server\r\nredis_mode:standalone\r\n", "x")).not.toThrow();
  });
});
