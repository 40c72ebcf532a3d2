import { z } from "zod";
import { EnvTemplateError, parseEnvTemplate } from "./env-template.ts";
import { describeValue } from "./errors.ts";
import { flag } from "./flag.ts";
import { checkedBy, parsedBy } from "./parser-issue.ts";
import { parseRedisAddress, type RedisAddress, RedisAddressError } from "./redis-address.ts";
import { sectionMap } from "./section-map.ts";

/**
 * Which Redis the bot uses: one node, a Redis Cluster, or a master found
 * through Sentinel. The environment (`REDIS_URL`, `REDIS_CLUSTER_NODES`,
 * `REDIS_SENTINELS`, ...) wins over this section; with neither, a Redis on
 * 127.0.0.1:6379 is used (or started).
 *
 * ```yaml
 * redis:
 *   url: redis://cache:6379            # one node; rediss:// for TLS
 *   # or
 *   cluster: [10.0.0.1:6379, 10.0.0.2:6379, 10.0.0.3:6379]
 *   nat_map: { "10.0.0.1:6379": "203.0.113.7:7001" }   # nodes announced under other addresses
 *   # or
 *   sentinels: [sentinel-1:26379, sentinel-2:26379, sentinel-3:26379]
 *   name: mymaster                     # the master group the sentinels watch
 *
 *   password: ${REDIS_PASSWORD}        # cluster and Sentinel nodes; a url carries its own
 *   username: switchyard               # Redis 6 ACL user, optional
 *   sentinel_password: ${SENTINEL_PASSWORD}
 *   tls: on                            # cluster and Sentinel: TLS to every node
 * ```
 */
export interface RedisConfig {
  /** May use `${NAME}`. */
  readonly url?: string;
  readonly cluster?: readonly RedisAddress[];
  /** Announced `host:port` -> where to reach it, for nodes behind NAT. */
  readonly natMap?: Readonly<Record<string, RedisAddress>>;
  readonly sentinels?: readonly RedisAddress[];
  readonly name?: string;
  /** May use `${NAME}`. */
  readonly username?: string;
  /** May use `${NAME}`. */
  readonly password?: string;
  /** May use `${NAME}`. */
  readonly sentinelPassword?: string;
  readonly tls: boolean;
}

export const DEFAULT_REDIS: RedisConfig = Object.freeze({ tls: false });

/** A value that may use `${NAME}`; a broken reference fails here, at startup. */
const templated = (what: string) =>
  z
    .string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` })
    .min(1, { error: `${what} cannot be empty; leave the key out instead.` })
    .superRefine(checkedBy(parseEnvTemplate, EnvTemplateError));

const address = z
  .string({
    error: (iss) => `expected host:port, e.g. 10.0.0.5:6379, found ${describeValue(iss.input)}.`,
  })
  .transform(parsedBy(parseRedisAddress, RedisAddressError));

const addresses = (what: string, example: string) =>
  z
    .array(address, {
      error: (iss) =>
        `expected a list of ${what}, e.g. [${example}], found ${describeValue(iss.input)}.`,
    })
    .min(1, { error: `name at least one of the ${what}, e.g. [${example}].` });

const natMap = z
  .record(z.string(), address, {
    error: (iss) =>
      `expected a map of announced host:port to reachable host:port, e.g. { "10.0.0.1:6379": "203.0.113.7:7001" }, found ${describeValue(iss.input)}.`,
  })
  .transform((map, ctx) => {
    const out: Record<string, RedisAddress> = {};
    for (const [announced, target] of Object.entries(map)) {
      try {
        const key = parseRedisAddress(announced);
        // ioredis looks nodes up as `host:port`, IPv6 without brackets.
        out[`${key.host}:${key.port}`] = target;
      } catch (error) {
        if (!(error instanceof RedisAddressError)) throw error;
        ctx.addIssue({ code: "custom", path: [announced], message: error.message });
      }
    }
    return Object.freeze(out);
  });

export const redisSection = sectionMap("redis", {
  url: templated("a redis:// or rediss:// URL")
    .refine((url) => /^rediss?:\/\//i.test(url), {
      error: (iss) =>
        `${describeValue(iss.input)} is not a Redis URL. Write redis://host:6379 (or rediss:// for TLS).`,
    })
    .optional(),
  cluster: addresses("cluster nodes", "10.0.0.1:6379, 10.0.0.2:6379").optional(),
  nat_map: natMap.optional(),
  sentinels: addresses("sentinels", "sentinel-1:26379, sentinel-2:26379").optional(),
  name: z
    .string({
      error: (iss) =>
        `expected the master group's name, e.g. mymaster, found ${describeValue(iss.input)}.`,
    })
    .regex(/^[A-Za-z0-9._-]{1,128}$/, {
      error: (iss) =>
        `${describeValue(iss.input)} is not a Sentinel master name. Use letters, digits, ".", "_" and "-", as in "sentinel monitor mymaster ...".`,
    })
    .optional(),
  username: templated("a user name").optional(),
  password: templated("a password").optional(),
  sentinel_password: templated("a password").optional(),
  tls: flag.default(false),
})
  .superRefine((r, ctx) => {
    const chosen = (["url", "cluster", "sentinels"] as const).filter((k) => r[k] !== undefined);
    if (chosen.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: [chosen[1] as string],
        message: `${chosen.join(": and ")}: are both set. Use url: for one node, cluster: for a Redis Cluster or sentinels: for Sentinel, one of them.`,
      });
    }
    if (r.sentinels !== undefined && r.name === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["sentinels"],
        message: `sentinels: needs name:, the master group they watch (the name in "sentinel monitor <name> ..."), e.g. name: mymaster.`,
      });
    }
    if (r.name !== undefined && r.sentinels === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["name"],
        message: "name: is the Sentinel master group; it needs sentinels: beside it.",
      });
    }
    if (r.nat_map !== undefined && r.cluster === undefined && r.sentinels === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["nat_map"],
        message:
          "nat_map: maps the addresses a cluster or Sentinel announces; it needs cluster: or sentinels: beside it.",
      });
    }
    if (r.sentinel_password !== undefined && r.sentinels === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["sentinel_password"],
        message: "sentinel_password: is for sentinels: (they may have a password of their own).",
      });
    }
    if (r.url !== undefined && (r.tls || r.password !== undefined || r.username !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message: `a url: carries its own user, password and TLS: write rediss://user:\${REDIS_PASSWORD}@host:6379 instead of tls:, username: or password:.`,
      });
    }
  })
  .transform(
    (r): RedisConfig =>
      Object.freeze({
        ...(r.url !== undefined ? { url: r.url } : {}),
        ...(r.cluster !== undefined ? { cluster: Object.freeze(r.cluster) } : {}),
        ...(r.nat_map !== undefined ? { natMap: r.nat_map } : {}),
        ...(r.sentinels !== undefined ? { sentinels: Object.freeze(r.sentinels) } : {}),
        ...(r.name !== undefined ? { name: r.name } : {}),
        ...(r.username !== undefined ? { username: r.username } : {}),
        ...(r.password !== undefined ? { password: r.password } : {}),
        ...(r.sentinel_password !== undefined ? { sentinelPassword: r.sentinel_password } : {}),
        tls: r.tls,
      }),
  );
