import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.ts";
import {
  connectRedis,
  createRedisConnection,
  maskRedisUrl,
  type RedisConnection,
  RedisNotInstalledError,
  RedisUnavailableError,
  type SpawnedRedis,
  spawnRedis,
} from "../../src/ops/redis/redis.ts";

const LOCAL = "redis://127.0.0.1:6379";

function recordingLogger() {
  const lines: string[] = [];
  const logger = createLogger({ env: {}, destination: { write: (line) => void lines.push(line) } });
  return { logger, lines };
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let dataDir: string;
let connection: RedisConnection | undefined;
let spawned: SpawnedRedis | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "switchyard-redis-"));
});

afterEach(async () => {
  await connection?.stop();
  await spawned?.stop();
  connection = undefined;
  spawned = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

describe("connectRedis", () => {
  it("connects to REDIS_URL when it is set", async () => {
    const { logger } = recordingLogger();
    connection = await connectRedis({ dataDir, logger, env: { REDIS_URL: LOCAL } });
    expect(connection.url).toBe(LOCAL);
    expect(connection.spawned).toBe(false);
    expect(await connection.redis.ping()).toBe("PONG");
    expect(connection.redis.options.maxRetriesPerRequest).toBeNull();
  });

  it("uses the Redis already answering on 127.0.0.1:6379 when no URL is set", async () => {
    const { logger } = recordingLogger();
    connection = await connectRedis({ dataDir, logger, env: {} });
    expect([connection.url, connection.spawned]).toEqual([LOCAL, false]);
    expect(await connection.redis.ping()).toBe("PONG");
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("fails clearly, naming the masked URL, when an explicit URL does not answer", async () => {
    const port = await closedPort();
    const { logger, lines } = recordingLogger();
    const attempt = connectRedis({
      url: `redis://:hunter2-pass@127.0.0.1:${port}`,
      dataDir,
      logger,
      timeoutMs: 2_000,
    });
    const error = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain(`No Redis answered at redis://:***@127.0.0.1:${port}`);
    expect(message).toContain("ECONNREFUSED");
    expect(message).not.toContain("hunter2-pass");
    expect(lines.join("\n")).not.toContain("hunter2-pass");
    // Nothing was started in its place.
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("starts its own redis-server when nothing answers locally, and stops it", async () => {
    const port = await closedPort();
    const { logger, lines } = recordingLogger();
    connection = await connectRedis({
      dataDir,
      logger,
      env: {},
      localUrl: `redis://127.0.0.1:${port}`,
    });
    expect(connection.spawned).toBe(true);
    expect(connection.url).not.toBe(`redis://127.0.0.1:${port}`);
    expect(await connection.redis.ping()).toBe("PONG");
    expect(await readdir(dataDir)).toContain("appendonlydir");
    expect(lines.join("\n")).toContain("starting redis-server");

    const url = connection.url as string;
    await connection.stop();
    connection = undefined;
    const probe = createRedisConnection(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on("error", () => {});
    await expect(probe.connect()).rejects.toThrow();
    probe.disconnect();
  });

  it("says how to install Redis when nothing answers and redis-server is missing", async () => {
    const port = await closedPort();
    const { logger } = recordingLogger();
    const attempt = connectRedis({
      dataDir,
      logger,
      env: {},
      localUrl: `redis://127.0.0.1:${port}`,
      binary: "redis-server-missing",
    });
    await expect(attempt).rejects.toBeInstanceOf(RedisNotInstalledError);
    await expect(attempt).rejects.toThrow(
      `No Redis answered at 127.0.0.1:${port} and redis-server-missing is not installed. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.`,
    );
  });

  it("stops cleanly twice", async () => {
    const { logger } = recordingLogger();
    const once = await connectRedis({ dataDir, logger, url: LOCAL });
    await once.stop();
    await once.stop();
    expect(once.redis.status).toBe("end");
  });
});

describe("spawnRedis", () => {
  it("starts a redis-server that answers, persists into dataDir, and stops", async () => {
    spawned = await spawnRedis({ dataDir: join(dataDir, "nested") });
    expect(spawned.port).not.toBe(6379);
    const client = createRedisConnection(spawned.url);
    expect(await client.ping()).toBe("PONG");
    await client.set("switchyard:test", "kept");
    await client.quit();
    expect(await readdir(join(dataDir, "nested"))).toContain("appendonlydir");

    const { pid } = spawned;
    expect(isAlive(pid)).toBe(true);
    await spawned.stop();
    expect(isAlive(pid)).toBe(false);
    // SIGTERM is a clean shutdown: the final snapshot is written.
    expect(existsSync(join(dataDir, "nested", "dump.rdb"))).toBe(true);

    // Same dataDir, new process: the data is still there.
    spawned = await spawnRedis({ dataDir: join(dataDir, "nested") });
    const again = createRedisConnection(spawned.url);
    expect(await again.get("switchyard:test")).toBe("kept");
    await again.quit();
  });

  it("throws a typed error with install instructions when the binary is missing", async () => {
    const attempt = spawnRedis({ dataDir, binary: "redis-server-missing" });
    await expect(attempt).rejects.toBeInstanceOf(RedisNotInstalledError);
    await expect(attempt).rejects.toThrow(
      "No Redis answered at 127.0.0.1:6379 and redis-server-missing is not installed. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.",
    );
  });

  it("names the default binary exactly as the install message promises", () => {
    expect(new RedisNotInstalledError().message).toBe(
      "No Redis answered at 127.0.0.1:6379 and redis-server is not installed. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.",
    );
  });
});

describe("maskRedisUrl", () => {
  it.each([
    ["redis://:pass@host:6379", "redis://:***@host:6379"],
    ["rediss://user:p%40ss@host:6380/2", "rediss://user:***@host:6380/2"],
    ["redis://user:p@ss@host", "redis://user:***@host"],
    ["redis://user@host", "redis://user@host"],
    ["redis://host:6379/0", "redis://host:6379/0"],
  ])("masks %s", (url, masked) => {
    expect(maskRedisUrl(url)).toBe(masked);
  });
});
