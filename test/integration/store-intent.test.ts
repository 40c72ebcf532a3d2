import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyChange,
  EMPTY_INTENT,
  type Intent,
  type IntentChange,
} from "../../src/core/availability/intent.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { createStore, StoreInputError } from "../../src/store/index.ts";
import { type IntentOp, intentOpsArb } from "../support/arbitraries.ts";
import { connectRedis, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("intent");

let conversations = 0;
function newAddress(): ConversationAddress {
  conversations++;
  return { platform: "slack", workspace: "T1", channel: "C1", conversation: `t${conversations}` };
}

function recordingLogger(): LoggerPort & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

/** The shared intent-op arbitrary, in the store's change vocabulary. */
function toChange(op: IntentOp): IntentChange {
  switch (op.op) {
    case "set":
      return { kind: "set", key: op.key, value: op.value };
    case "reset":
      return op.key === undefined ? { kind: "reset" } : { kind: "reset", key: op.key };
    case "pick":
      return { kind: "pick", ids: op.ids };
    case "mount":
      return { kind: "mount", ids: op.ids };
    case "mode":
      return { kind: "mode", mode: op.mode };
    case "toolset":
      return { kind: "toolset", name: op.toolset };
    case "webSearch":
      return { kind: "webSearch", value: op.value };
  }
}

describe("intent store", () => {
  it("reads an untouched conversation as the empty intent", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    expect(await store.intent.read(newAddress())).toEqual({ intent: EMPTY_INTENT, problems: [] });
  });

  const cases: Array<[string, IntentChange[], Partial<Intent>]> = [
    [
      "set on",
      [{ kind: "set", key: "web_search", value: "on" }],
      { decisions: { web_search: true } },
    ],
    [
      "set off",
      [{ kind: "set", key: "mcp:github", value: "off" }],
      { decisions: { "mcp:github": false } },
    ],
    [
      "set follow",
      [
        { kind: "set", key: "mcp", value: "off" },
        { kind: "set", key: "mcp", value: "follow" },
      ],
      {},
    ],
    ["set all (the master switch)", [{ kind: "set", key: "all", value: "off" }], { master: "off" }],
    [
      "reset one key",
      [
        { kind: "set", key: "recall", value: "on" },
        { kind: "set", key: "remember", value: "off" },
        { kind: "reset", key: "recall" },
      ],
      { decisions: { remember: false } },
    ],
    [
      "reset everything but the mounts",
      [
        { kind: "set", key: "all", value: "on" },
        { kind: "set", key: "recall", value: "on" },
        { kind: "toolset", name: "research" },
        { kind: "mode", mode: "discover" },
        { kind: "webSearch", value: "off" },
        { kind: "pick", ids: ["recall"] },
        { kind: "mount", ids: ["fetch_url", "recall"] },
        { kind: "reset" },
      ],
      { mounted: ["fetch_url", "recall"] },
    ],
    [
      "pick, sorted and unique",
      [{ kind: "pick", ids: ["run_python", "fetch_url", "run_python"] }],
      { picked: ["fetch_url", "run_python"] },
    ],
    [
      "an empty pick follows the toolset again",
      [
        { kind: "pick", ids: ["recall"] },
        { kind: "pick", ids: [] },
      ],
      {},
    ],
    [
      "mount in load order, without duplicates",
      [
        { kind: "mount", ids: ["recall", "fetch_url"] },
        { kind: "mount", ids: ["fetch_url", "Translate", "recall"] },
      ],
      { mounted: ["recall", "fetch_url", "Translate"] },
    ],
    [
      "a toolset clears the hand-picked list",
      [
        { kind: "pick", ids: ["recall"] },
        { kind: "toolset", name: "research" },
      ],
      { toolset: "research" },
    ],
    [
      "toolset back to follow",
      [
        { kind: "toolset", name: "research" },
        { kind: "toolset", name: null },
      ],
      {},
    ],
    ["mode", [{ kind: "mode", mode: "minimal" }], { mode: "minimal" }],
    [
      "mode back to follow",
      [
        { kind: "mode", mode: "full" },
        { kind: "mode", mode: null },
      ],
      {},
    ],
    ["web search", [{ kind: "webSearch", value: "on" }], { webSearch: "on" }],
  ];

  it.each(cases)("round-trips %s", async (_name, changes, expected) => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    let last: Intent = EMPTY_INTENT;
    for (const change of changes) last = await store.intent.apply(address, change);
    const want = { ...EMPTY_INTENT, ...expected };
    expect(last).toEqual(want);
    expect(await store.intent.read(address)).toEqual({ intent: want, problems: [] });
  });

  it("reads back any sequence of changes as folding applyChange in memory", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    await fc.assert(
      fc.asyncProperty(intentOpsArb, async (ops) => {
        const address = newAddress();
        let expected: Intent = EMPTY_INTENT;
        for (const change of ops.map(toChange)) {
          expected = applyChange(expected, change);
          expect(await store.intent.apply(address, change)).toEqual(expected);
        }
        const reading = await store.intent.read(address);
        expect(reading.problems).toEqual([]);
        expect(reading.intent).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it("keeps all of 50 toggles of 50 different keys made at the same moment", async () => {
    const clients = Array.from({ length: 5 }, () => connectRedis());
    try {
      const stores = clients.map((redis) => createStore(redis, { prefix: db.prefix }));
      const address = newAddress();
      const keys = Array.from({ length: 50 }, (_, i) => `tool_${i}`);
      await Promise.all(
        keys.map((key, i) =>
          stores[i % stores.length]?.intent.apply(address, {
            kind: "set",
            key,
            value: i % 2 === 0 ? "on" : "off",
          }),
        ),
      );
      const { intent } = await createStore(db.redis, { prefix: db.prefix }).intent.read(address);
      expect(intent.decisions).toEqual(
        Object.fromEntries(keys.map((key, i) => [key, i % 2 === 0])),
      );
    } finally {
      await Promise.all(clients.map((redis) => redis.quit()));
    }
  });

  it("lets the last of concurrent changes to one key win, leaving one decision", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    const values = ["on", "off", "on", "off", "off", "on"] as const;
    const results = await Promise.all(
      values.map((value) => store.intent.apply(address, { kind: "set", key: "recall", value })),
    );
    const { intent } = await store.intent.read(address);
    // One connection serializes the commands: the last one sent is the last one applied.
    expect(intent.decisions).toEqual({ recall: true });
    expect(results.at(-1)?.decisions).toEqual({ recall: true });
    expect(await db.redis.hlen(store.keys.conversation(address).intent)).toBe(2); // v and d:recall
  });

  it("never duplicates or loses a mount made concurrently", async () => {
    const clients = Array.from({ length: 4 }, () => connectRedis());
    try {
      const stores = clients.map((redis) => createStore(redis, { prefix: db.prefix }));
      const address = newAddress();
      const ids = Array.from({ length: 30 }, (_, i) => `mcp__srv__tool_${i}`);
      const batches = Array.from({ length: 40 }, (_, i) => [
        ids[i % 30] as string,
        ids[(i * 7) % 30] as string,
        ids[(i * 13 + 5) % 30] as string,
      ]);
      await Promise.all(
        batches.map((batch, i) =>
          stores[i % stores.length]?.intent.apply(address, { kind: "mount", ids: batch }),
        ),
      );
      const { intent } = await createStore(db.redis, { prefix: db.prefix }).intent.read(address);
      expect(new Set(intent.mounted).size).toBe(intent.mounted.length);
      expect([...intent.mounted].sort()).toEqual([...new Set(batches.flat())].sort());
    } finally {
      await Promise.all(clients.map((redis) => redis.quit()));
    }
  });

  it("reads a damaged hash without error: bad fields follow, good ones hold, each warned once", async () => {
    const logger = recordingLogger();
    const store = createStore(db.redis, { prefix: db.prefix, logger });
    const address = newAddress();
    await db.redis.hset(store.keys.conversation(address).intent, {
      master: "maybe",
      toolset: "research",
      mode: "turbo",
      webSearch: "off",
      picked: "not json",
      "d:fetch_url": "0",
      "d:recall": "yes",
      "d:bad key": "1",
      "m:recall": "3",
      "m:fetch_url": "1",
      "m:web_search": "soon",
      "m:bad id!": "2",
      "x:future": "whatever",
    });
    const reading = await store.intent.read(address);
    expect(reading.intent).toEqual({
      ...EMPTY_INTENT,
      toolset: "research",
      webSearch: "off",
      decisions: { fetch_url: false },
      mounted: ["fetch_url", "recall"],
    });
    expect(reading.problems.map((problem) => problem.split(":")[0])).toEqual(
      expect.arrayContaining(["master", "mode", "picked", "d", "m"]),
    );
    expect(reading.problems).toHaveLength(7);
    expect(logger.messages).toHaveLength(7);
    await store.intent.read(address);
    expect(logger.messages).toHaveLength(7);
  });

  it("stores ask for a key and for the master switch, beside decisions stored as 1 and 0", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    const hash = store.keys.conversation(address).intent;
    await db.redis.hset(hash, { "d:web_search": "0", "d:recall": "1" });
    await store.intent.apply(address, { kind: "set", key: "send_message", value: "ask" });
    const last = await store.intent.apply(address, { kind: "set", key: "all", value: "ask" });
    expect(last).toEqual({
      ...EMPTY_INTENT,
      master: "ask",
      decisions: { recall: true, send_message: "ask", web_search: false },
    });
    expect(await db.redis.hmget(hash, "master", "d:send_message")).toEqual(["ask", "ask"]);
    expect(await store.intent.read(address)).toEqual({ intent: last, problems: [] });
  });

  it("reads an old or partial hash: no version, missing fields follow", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await db.redis.hset(store.keys.conversation(address).intent, { toolset: "default" });
    expect(await store.intent.read(address)).toEqual({
      intent: { ...EMPTY_INTENT, toolset: "default" },
      problems: [],
    });
  });

  it("continues the load order of a hash that lost its mount counter", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await db.redis.hset(store.keys.conversation(address).intent, {
      "m:recall": "5",
      "m:fetch_url": "2",
    });
    const intent = await store.intent.apply(address, { kind: "mount", ids: ["Translate"] });
    expect(intent.mounted).toEqual(["fetch_url", "recall", "Translate"]);
  });

  it("reads a key of the wrong type as the empty intent, with a problem", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await db.redis.set(store.keys.conversation(address).intent, '{"master":"on"}');
    const reading = await store.intent.read(address);
    expect(reading.intent).toEqual(EMPTY_INTENT);
    expect(reading.problems[0]).toMatch(/holds a string, not a hash/);
  });

  it("refuses a change it could not read back, writing nothing", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    const bad: IntentChange[] = [
      { kind: "set", key: "bad key", value: "on" },
      { kind: "set", key: "recall", value: "maybe" as never },
      { kind: "pick", ids: ["ok", "not ok"] },
      { kind: "mount", ids: ["x".repeat(65)] },
      { kind: "toolset", name: "" },
      { kind: "mode", mode: "turbo" as never },
      { kind: "webSearch", value: "yes" as never },
    ];
    for (const change of bad) {
      await expect(store.intent.apply(address, change)).rejects.toThrow(StoreInputError);
    }
    expect(await db.redis.exists(store.keys.conversation(address).intent)).toBe(0);
  });

  it("stores O(changes): the same commands cost the same bytes over 10 tools or 5,000", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const sizes: number[] = [];
    for (const registrySize of [10, 5_000]) {
      const registry = Array.from({ length: registrySize }, (_, i) => `tool_${i}`);
      const address = newAddress();
      // What people and discovery do, whatever the registry holds.
      await store.intent.apply(address, { kind: "toolset", name: "full" });
      await store.intent.apply(address, { kind: "set", key: "all", value: "on" });
      await store.intent.apply(address, { kind: "set", key: "tool_3", value: "off" });
      await store.intent.apply(address, { kind: "mode", mode: "discover" });
      await store.intent.apply(address, { kind: "mount", ids: ["tool_7", "tool_9"] });
      const hash = await db.redis.hgetall(store.keys.conversation(address).intent);
      const stored = JSON.stringify(hash);
      for (const id of registry.filter((id) => !["tool_3", "tool_7", "tool_9"].includes(id))) {
        expect(stored.includes(`"${id}"`) || stored.includes(`:${id}"`)).toBe(false);
      }
      expect(Object.keys(hash)).toHaveLength(8); // v toolset master d:tool_3 mode m:tool_7 m:tool_9 mseq
      sizes.push(stored.length);
    }
    expect(sizes[0]).toBe(sizes[1]);
  });
});
