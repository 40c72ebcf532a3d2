import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import { startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { createStore, KeyScheme, pairingCodeHash, RateLimitStore } from "../../src/store/index.ts";
import {
  connectRedis,
  deleteKeysUnder,
  keysUnder,
  uniquePrefix,
  useTestRedis,
} from "../support/redis.ts";

const db = useTestRedis("access");

let counter = 0;
function message(over: Partial<InboundMessage> = {}): InboundMessage {
  counter += 1;
  return {
    platform: "telegram",
    workspace: "42",
    channel: "42",
    conversation: "42",
    user: "42",
    userName: "Zoe",
    kind: "dm",
    text: "hi",
    attachments: [],
    eventId: `42:${counter}`,
    time: Date.now(),
    ...over,
  };
}

function gate(config: SwitchyardConfig, refused: string[] = [], codes = ["ABCDEFGH", "JKMNPQRS"]) {
  const queue = [...codes];
  return new IngressGate({
    store: createStore(db.redis, { prefix: db.prefix }),
    config: () => config,
    refused: (reason) => refused.push(reason),
    newCode: () => queue.shift() ?? "ZZZZZZZZ",
  });
}

const cfg = (text: string) => parseConfig(text, "switchyard.yaml");

describe("the rate limiter, on several Redis connections at once", () => {
  let connections: Redis[] = [];
  const prefix = uniquePrefix("ratelimit");
  beforeAll(() => {
    connections = [connectRedis(), connectRedis(), connectRedis(), connectRedis()];
  });
  afterAll(async () => {
    await deleteKeysUnder(connections[0] as Redis, prefix);
    for (const c of connections) c.disconnect();
  });

  it("admits exactly the limit of any interleaving of concurrent requests", async () => {
    const keys = new KeyScheme(prefix);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 0, maxLength: 40 }),
        async (limit, senders) => {
          run += 1;
          const key = keys.rateLimit({ kind: "user", platform: "t", user: `u${run}` }, 60_000);
          const results = await Promise.all(
            senders.map((c, i) =>
              new RateLimitStore(connections[c] as Redis).take(key, limit, 60_000, `m${i}`),
            ),
          );
          const admitted = results.filter((r) => r.admitted);
          expect(admitted).toHaveLength(Math.min(limit, senders.length));
          for (const r of results.filter((x) => !x.admitted)) {
            expect(r.resetMs).toBeGreaterThan(0);
            expect(r.resetMs).toBeLessThanOrEqual(60_000);
          }
          // The count never passes the limit, and the key goes away on its own.
          const store = connections[0] as Redis;
          expect(await store.zcard(key)).toBe(Math.min(limit, senders.length));
          if (senders.length > 0) {
            const ttl = await store.pttl(key);
            expect(ttl).toBeGreaterThan(0);
            expect(ttl).toBeLessThanOrEqual(60_000);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the ingress gate", () => {
  it("gives a stranger one code, stored only as its hash, with a TTL, and stays quiet after", async () => {
    const refused: string[] = [];
    const g = gate(cfg(""), refused);
    const first = await g.admit(message());
    expect(first).toMatchObject({ kind: "refused", reason: "dm_pairing", leave: false });
    expect(first.kind === "refused" && first.reply).toContain("Your pairing code is ABCDEFGH");
    expect(await g.admit(message())).toEqual({
      kind: "refused",
      reason: "dm_pairing",
      leave: false,
    });
    expect(refused).toEqual(["dm_pairing", "dm_pairing"]);

    const keys = new KeyScheme(db.prefix).access();
    const stored = await keysUnder(db.redis, db.prefix);
    expect(stored.some((k) => k.includes("ABCDEFGH"))).toBe(false);
    expect(stored).toContain(keys.code(pairingCodeHash("ABCDEFGH")));
    const ttl = await db.redis.pttl(keys.code(pairingCodeHash("ABCDEFGH")));
    expect(ttl).toBeGreaterThan(59 * 60_000);
    expect(ttl).toBeLessThanOrEqual(60 * 60_000);
  });

  it("keeps one live code per person: a new one replaces the old", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    await store.access.issue({ user: "telegram:42" }, "ABCDEFGH", 60_000, Date.now());
    await store.access.issue({ user: "telegram:42" }, "JKMNPQRS", 60_000, Date.now());
    expect(await store.access.approve("ABCDEFGH", "telegram:1", Date.now())).toBeUndefined();
    expect(await store.access.approve("JKMNPQRS", "telegram:1", Date.now())).toMatchObject({
      user: "telegram:42",
    });
    expect(await store.access.isApproved("telegram:42")).toBe(true);
    expect((await store.access.pending()).total).toBe(0);
  });

  it("lets owners and admins in under every policy, but counts their messages too", async () => {
    const config = cfg(
      "permissions:\n  owners: [telegram:42]\naccess:\n  dm: closed\n  groups: closed\nlimits:\n  user: 1/h\n",
    );
    const g = gate(config);
    expect(await g.admit(message())).toEqual({ kind: "pass" });
    expect(await g.admit(message({ kind: "group", workspace: "-1", channel: "-1" }))).toEqual({
      kind: "pass",
    });
    expect(await g.meter(message())).toEqual({ kind: "pass" });
    expect(await g.meter(message())).toMatchObject({ kind: "refused", reason: "limit_user" });
  });

  it("counts every refused message in switchyard_refused_total by reason", async () => {
    const metrics = new Metrics();
    const g = new IngressGate({
      store: createStore(db.redis, { prefix: db.prefix }),
      config: () => cfg("access:\n  dm: closed\nlimits:\n  user: 1/h\n"),
      refused: (reason) => metrics.countRefused(reason),
    });
    await g.admit(message());
    await g.admit(message());
    await g.meter(message());
    await g.meter(message());
    const text = await metrics.exposition();
    expect(text).toContain('switchyard_refused_total{reason="dm_closed"} 2');
    expect(text).toContain('switchyard_refused_total{reason="limit_user"} 1');
  });

  it("refunds the narrower limits a wider one refused, so counts stay exact", async () => {
    const refused: string[] = [];
    const g = gate(cfg("limits:\n  conversation: 5/h\n  workspace: 1/h\n"), refused);
    expect(await g.meter(message())).toEqual({ kind: "pass" });
    const other = message({ conversation: "42:7" });
    expect(await g.meter(other)).toMatchObject({ reason: "limit_workspace" });
    const keys = new KeyScheme(db.prefix);
    const conversationKey = keys.rateLimit({ kind: "conversation", address: other }, 3_600_000);
    expect(await db.redis.zcard(conversationKey)).toBe(0);
    expect(refused).toEqual(["limit_workspace"]);
  });

  it("lets a group in by its place on the allow list, never by a person's entry", async () => {
    const config = cfg("access:\n  groups: allowlist\n  allow: [telegram:42, telegram:chat:-5]\n");
    const g = gate(config);
    expect(await g.admit(message({ kind: "group", workspace: "-5", channel: "-5" }))).toEqual({
      kind: "pass",
    });
    const elsewhere = message({ kind: "group", workspace: "-6", channel: "-6" });
    expect(await g.admit(elsewhere, { canLeave: true })).toMatchObject({
      kind: "refused",
      reason: "group_allowlist",
      leave: true,
    });
    // A channel that cannot leave (Slack, Discord) neither leaves nor says it will.
    const other = message({ kind: "group", workspace: "-7", channel: "-7", user: "43" });
    const stays = await g.admit(other);
    expect(stays).toMatchObject({ kind: "refused", leave: false });
    expect(stays.kind === "refused" && stays.reply).not.toContain("leaving");
    expect(await g.admit(message())).toEqual({ kind: "pass" });
  });

  it("runs the added checks after the rate limits, in order, and refunds on a refusal", async () => {
    const seen: string[] = [];
    const g = new IngressGate({
      store: createStore(db.redis, { prefix: db.prefix }),
      config: () => cfg("limits:\n  user: 10/h\n"),
      checks: [
        async () => {
          seen.push("first");
          return undefined;
        },
        async () => {
          seen.push("budget");
          return { reason: "budget_user", text: "Over today's budget." };
        },
      ],
    });
    const m = message();
    expect(await g.meter(m)).toEqual({
      kind: "refused",
      reason: "budget_user",
      reply: "Over today's budget.",
      leave: false,
    });
    expect(seen).toEqual(["first", "budget"]);
    const key = new KeyScheme(db.prefix).rateLimit(
      { kind: "user", platform: m.platform, user: m.user },
      3_600_000,
    );
    expect(await db.redis.zcard(key)).toBe(0);
  });

  it("refuses a message over the workspace's daily token budget, counted in /metrics like a rate limit, answered once per interval", async () => {
    const metrics = new Metrics();
    const ops = await startOpsServer({ port: 0, host: "127.0.0.1", metrics, ready: () => true });
    try {
      const store = createStore(db.redis, { prefix: db.prefix });
      const g = new IngressGate({
        store,
        config: () => cfg("limits:\n  user: 10/h\nbudgets:\n  tokens:\n    workspace: 1000/day\n"),
        refused: (reason) => metrics.countRefused(reason),
      });
      const spender = message({ workspace: "budget-ws", channel: "budget-ws", user: "77" });
      expect(await g.meter(spender)).toEqual({ kind: "pass" });
      await store.usage.record(
        { address: spender, user: "telegram:77" },
        "turn-1",
        { promptTokens: 1_200, cachedTokens: 0, completionTokens: 40 },
        0,
        Date.now(),
      );
      const next = message({ workspace: "budget-ws", channel: "budget-ws", user: "77" });
      const refused = await g.meter(next);
      expect(refused).toMatchObject({ kind: "refused", reason: "token_budget", leave: false });
      expect(refused.kind === "refused" && refused.reply).toMatch(
        /^This workspace has used its daily budget of 1,000 tokens\. It resets at 00:00 UTC/,
      );
      // Told once: the next refused message within the interval is dropped quietly.
      const again = await g.meter(
        message({ workspace: "budget-ws", channel: "budget-ws", user: "77" }),
      );
      expect(again).toEqual({ kind: "refused", reason: "token_budget", leave: false });
      // The refused messages gave back the rate-limit slots they took.
      const key = new KeyScheme(db.prefix).rateLimit(
        { kind: "user", platform: "telegram", user: "77" },
        3_600_000,
      );
      expect(await db.redis.zcard(key)).toBe(1);
      const scraped = await (await fetch(`http://127.0.0.1:${ops.port}/metrics`)).text();
      expect(scraped).toContain('switchyard_refused_total{reason="token_budget"} 2');
    } finally {
      await ops.close();
    }
  });
});
