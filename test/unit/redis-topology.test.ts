import fc from "fast-check";
import { Cluster, Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { StartOptionError } from "../../src/cli/platforms.ts";
import {
  DEFAULT_QUEUE,
  formatRedisAddress,
  parseRedisAddress,
  parseRedisAddressList,
  RedisAddressError,
} from "../../src/core/config/index.ts";
import { describeTopology, RedisTopologyError, topologyFrom } from "../../src/ops/redis/redis.ts";
import { readConfig } from "../../src/platforms/config.ts";
import { queueFromEnv, queueSettings } from "../../src/runtime/queue-settings.ts";
import { RedisFactory } from "../../src/store/redis/redis-factory.ts";

const config = (text: string) => readConfig(text, "switchyard.yaml").config;

describe("Redis addresses", () => {
  it("reads host:port, names and bracketed IPv6, and says what is wrong otherwise", () => {
    expect(parseRedisAddress("10.0.0.5:6379")).toEqual({ host: "10.0.0.5", port: 6379 });
    expect(parseRedisAddress(" cache-1.internal:7000 ")).toEqual({
      host: "cache-1.internal",
      port: 7000,
    });
    expect(parseRedisAddress("[2001:db8::1]:6379")).toEqual({ host: "2001:db8::1", port: 6379 });
    expect(parseRedisAddressList("a:1, b:2,,")).toEqual([
      { host: "a", port: 1 },
      { host: "b", port: 2 },
    ]);
    expect(() => parseRedisAddress("cache")).toThrow(
      '"cache" is not a Redis address: the port is missing. Write host:port, e.g. 10.0.0.5:6379 or [2001:db8::1]:6379.',
    );
    expect(() => parseRedisAddress("cache:99999")).toThrow(/"99999" is not a port \(1-65535\)/);
    expect(() => parseRedisAddress("::1:6379")).toThrow(/an IPv6 address needs brackets/);
    expect(() => parseRedisAddress(":6379")).toThrow(/the host is missing/);
    expect(() => parseRedisAddressList(" , ")).toThrow(/the list names no node/);
  });

  it("never fails with anything but RedisAddressError, and reads back what it formats", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        try {
          const address = parseRedisAddress(text);
          expect(parseRedisAddress(formatRedisAddress(address))).toEqual(address);
        } catch (error) {
          expect(error).toBeInstanceOf(RedisAddressError);
        }
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6()),
        fc.integer({ min: 1, max: 65_535 }),
        (host, port) => {
          const written = formatRedisAddress({ host, port });
          expect(parseRedisAddress(written)).toEqual({ host, port });
        },
      ),
    );
  });
});

describe("topologyFrom", () => {
  it("is the local single Redis when nothing is set", () => {
    expect(topologyFrom({})).toEqual({ kind: "single" });
    expect(describeTopology(topologyFrom({}))).toBe("the local Redis");
  });

  it("reads a cluster from REDIS_CLUSTER_NODES, with the credentials and TLS variables", () => {
    const topology = topologyFrom({
      REDIS_CLUSTER_NODES: "10.0.0.1:6379,10.0.0.2:6379",
      REDIS_PASSWORD: "hunter2",
      REDIS_USERNAME: "switchyard",
      REDIS_TLS: "on",
    });
    expect(topology).toEqual({
      kind: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 6379 },
        { host: "10.0.0.2", port: 6379 },
      ],
      username: "switchyard",
      password: "hunter2",
      tls: true,
    });
    expect(describeTopology(topology)).toBe("Redis Cluster via 10.0.0.1:6379, 10.0.0.2:6379 (TLS)");
  });

  it("reads Sentinel from REDIS_SENTINELS and REDIS_SENTINEL_NAME, and needs both", () => {
    expect(
      topologyFrom({ REDIS_SENTINELS: "s1:26379,s2:26379", REDIS_SENTINEL_NAME: "mymaster" }),
    ).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26379 },
      ],
      name: "mymaster",
      tls: false,
    });
    expect(() => topologyFrom({ REDIS_SENTINELS: "s1:26379" })).toThrow(
      /REDIS_SENTINELS is set but REDIS_SENTINEL_NAME is not\. Set it to the master group/,
    );
    expect(() => topologyFrom({ REDIS_SENTINEL_NAME: "mymaster" })).toThrow(
      /REDIS_SENTINEL_NAME is set but REDIS_SENTINELS is not/,
    );
  });

  it("refuses two topologies, a bad node list, a URL that is not redis:// and a bad REDIS_TLS", () => {
    expect(() => topologyFrom({ REDIS_URL: "redis://a:1", REDIS_CLUSTER_NODES: "b:2" })).toThrow(
      new RedisTopologyError(
        "REDIS_URL and REDIS_CLUSTER_NODES are both set. Set REDIS_URL for one Redis, REDIS_CLUSTER_NODES for a Redis Cluster or REDIS_SENTINELS (with REDIS_SENTINEL_NAME) for Sentinel: one of them.",
      ),
    );
    expect(() => topologyFrom({ REDIS_CLUSTER_NODES: "10.0.0.1" })).toThrow(
      /^REDIS_CLUSTER_NODES: "10\.0\.0\.1" is not a Redis address: the port is missing\..* REDIS_CLUSTER_NODES is a comma-separated list, e\.g\. REDIS_CLUSTER_NODES=10\.0\.0\.1:6379,10\.0\.0\.2:6379\.$/,
    );
    expect(() => topologyFrom({ REDIS_URL: "http://:secret@cache:6379" })).toThrow(
      'REDIS_URL must be a redis:// or rediss:// URL, not "http://:***@cache:6379".',
    );
    expect(() => topologyFrom({ REDIS_CLUSTER_NODES: "a:1", REDIS_TLS: "maybe" })).toThrow(
      /REDIS_TLS must be on or off/,
    );
  });

  it("takes the config's redis: section below the environment, filling variables from it", () => {
    const section = config(
      `redis:\n  cluster: [10.0.0.1:6379]\n  password: \${REDIS_SECRET}\n  nat_map: { '10.0.0.1:6379': 'public.example:7001' }\n`,
    ).redis;
    expect(topologyFrom({ REDIS_SECRET: "s3cret" }, section)).toEqual({
      kind: "cluster",
      nodes: [{ host: "10.0.0.1", port: 6379 }],
      natMap: { "10.0.0.1:6379": { host: "public.example", port: 7001 } },
      password: "s3cret",
      tls: false,
    });
    // The environment's choice replaces the section's; its password wins over the section's.
    expect(topologyFrom({ REDIS_URL: "redis://cache:6379", REDIS_SECRET: "x" }, section)).toEqual({
      kind: "single",
      url: "redis://cache:6379",
      password: "x",
    });
    expect(() => topologyFrom({}, section)).toThrow(
      /redis\.password in the config file uses \$\{REDIS_SECRET\}, which is not set/,
    );
  });
});

describe("the redis: and queue: sections", () => {
  const problem = (text: string) => {
    try {
      readConfig(text, "switchyard.yaml");
    } catch (error) {
      return (error as Error).message;
    }
    return "";
  };

  it("say what is wrong, with the line", () => {
    expect(problem("redis:\n  url: redis://a:1\n  cluster: [b:2]\n")).toBe(
      "switchyard.yaml:3: redis.cluster: url: and cluster: are both set. Use url: for one node, cluster: for a Redis Cluster or sentinels: for Sentinel, one of them.",
    );
    expect(problem("redis:\n  sentinels: [s:26379]\n")).toMatch(
      /^switchyard\.yaml:2: redis\.sentinels: sentinels: needs name:/,
    );
    expect(problem("redis:\n  cluster: [nohost]\n")).toMatch(
      /^switchyard\.yaml:2: redis\.cluster\[0\]: "nohost" is not a Redis address: the port is missing/,
    );
    expect(problem("redis:\n  url: redis://a:1\n  tls: on\n")).toMatch(
      /a url: carries its own user, password and TLS: write rediss:\/\//,
    );
    expect(problem("redis:\n  clusters: []\n")).toMatch(
      /unknown key "clusters"\. The redis section takes url:/,
    );
    expect(problem("queue:\n  shards: 0\n")).toBe(
      "switchyard.yaml:2: queue.shards: must be at least 1.",
    );
    expect(problem("queue:\n  shards: 2\n  consume: [0, 2]\n")).toBe(
      "switchyard.yaml:3: queue.consume[1]: there is no shard 2 with shards: 2; shards are numbered 0 to 1.",
    );
  });

  it("read a queue section, deduplicating and sorting the shards consumed", () => {
    expect(config("queue:\n  shards: 4\n  consume: [3, 1, 3]\n").queue).toEqual({
      ...DEFAULT_QUEUE,
      shards: 4,
      consume: [1, 3],
    });
    expect(config("").queue).toEqual(DEFAULT_QUEUE);
  });
});

describe("queue settings", () => {
  const single = { topology: "single", masters: 1, summary: "" } as const;
  const cluster = { topology: "cluster", masters: 3, summary: "" } as const;

  it("take the environment over the config, and a shard per master on a cluster by default", () => {
    expect(queueSettings({}, DEFAULT_QUEUE, single).shards).toBe(1);
    expect(queueSettings({}, DEFAULT_QUEUE, cluster).shards).toBe(3);
    expect(queueSettings({}, { ...DEFAULT_QUEUE, shards: 8 }, cluster).shards).toBe(8);
    expect(
      queueSettings(
        queueFromEnv({ SWITCHYARD_QUEUE_SHARDS: "6", SWITCHYARD_QUEUE_CONSUME: "0-2,5" }),
        {
          ...DEFAULT_QUEUE,
          shards: 8,
        },
        cluster,
      ),
    ).toEqual({ shards: 6, consume: [0, 1, 2, 5], waitForReplicas: 0, waitTimeoutMs: 1_000 });
  });

  it("refuse bad variables and shards that do not exist, naming the variable", () => {
    expect(() => queueFromEnv({ SWITCHYARD_QUEUE_SHARDS: "four" })).toThrow(
      new StartOptionError(
        'SWITCHYARD_QUEUE_SHARDS must be a whole number from 1 to 256, not "four". Every process of a deployment should use the same.',
      ),
    );
    expect(() => queueFromEnv({ SWITCHYARD_QUEUE_CONSUME: "3-1" })).toThrow(
      /SWITCHYARD_QUEUE_CONSUME takes shard numbers and ranges such as "0,1" or "0-3", not "3-1"/,
    );
    expect(() => queueSettings({ consume: [5] }, DEFAULT_QUEUE, cluster)).toThrow(
      "SWITCHYARD_QUEUE_CONSUME names shard 5, but there are 3 shards (0 to 2). Name shards below 3, or raise the shard count (SWITCHYARD_QUEUE_SHARDS or queue.shards).",
    );
    expect(() => queueSettings({}, { ...DEFAULT_QUEUE, waitForReplicas: 1 }, cluster)).toThrow(
      /queue\.wait_for_replicas waits on one node's replicas, but on a Redis Cluster/,
    );
  });
});

describe("RedisFactory", () => {
  it("builds a Cluster for a cluster, configured for BullMQ, NAT and TLS", () => {
    const factory = new RedisFactory({
      kind: "cluster",
      nodes: [{ host: "10.0.0.1", port: 6379 }],
      natMap: { "10.0.0.1:6379": { host: "public.example", port: 7001 } },
      password: "cluster-pass-7f3e",
      tls: true,
    });
    const client = factory.create("worker", { lazyConnect: true }) as unknown as Cluster;
    try {
      expect(client).toBeInstanceOf(Cluster);
      expect(client.isCluster).toBe(true);
      expect(client.options.redisOptions).toMatchObject({
        maxRetriesPerRequest: null,
        password: "cluster-pass-7f3e",
        tls: {},
        connectionName: "switchyard:worker",
      });
      expect(client.options.natMap).toEqual({
        "10.0.0.1:6379": { host: "public.example", port: 7001 },
      });
      expect(factory.isCluster).toBe(true);
    } finally {
      client.disconnect();
    }
  });

  it("builds a Sentinel client that follows failovers, and auto-pipelines only the state connection", () => {
    const factory = new RedisFactory({
      kind: "sentinel",
      sentinels: [{ host: "s1", port: 26379 }],
      name: "mymaster",
      sentinelPassword: "sentinel-pass-7f3e",
      tls: false,
    });
    const state = factory.create("state", { lazyConnect: true });
    const queue = factory.create("queue", { lazyConnect: true });
    try {
      expect(state).toBeInstanceOf(Redis);
      expect(state.options).toMatchObject({
        name: "mymaster",
        sentinels: [{ host: "s1", port: 26379 }],
        sentinelPassword: "sentinel-pass-7f3e",
        failoverDetector: true,
        maxRetriesPerRequest: null,
        enableAutoPipelining: true,
      });
      expect(queue.options.enableAutoPipelining).toBe(false);
    } finally {
      state.disconnect();
      queue.disconnect();
    }
  });

  it("speaks TLS to a redis:// REDIS_URL when REDIS_TLS is on, as deploy/kubernetes/redis.yaml sets it", () => {
    const on = topologyFrom({ REDIS_URL: "redis://cache:6379/0", REDIS_TLS: "true" });
    expect(on).toEqual({ kind: "single", url: "redis://cache:6379/0", tls: true });
    expect(describeTopology(on)).toBe("Redis at redis://cache:6379/0 (TLS)");
    const off = topologyFrom({ REDIS_URL: "redis://cache:6379/0", REDIS_TLS: "false" });
    expect(off).toEqual({ kind: "single", url: "redis://cache:6379/0" });
    const secure = new RedisFactory(on).create("tools");
    const plain = new RedisFactory(off).create("tools");
    try {
      expect(secure.options.tls).toEqual({});
      expect(plain.options.tls).toBeUndefined();
    } finally {
      secure.disconnect();
      plain.disconnect();
    }
  });

  it("keeps a URL's own password and uses REDIS_PASSWORD only when the URL has none", () => {
    const withOwn = new RedisFactory({
      kind: "single",
      url: "redis://:url-own-pass-7f3e@h:1",
      password: "env-pass-7f3e",
    });
    const without = new RedisFactory({
      kind: "single",
      url: "redis://h:1",
      password: "env-pass-7f3e",
    });
    const a = withOwn.create("tools");
    const b = without.create("tools");
    try {
      expect([a.options.password, b.options.password]).toEqual([
        "url-own-pass-7f3e",
        "env-pass-7f3e",
      ]);
      expect(a.status).toBe("wait");
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
