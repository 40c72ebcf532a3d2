import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultShardCount, shardOf, shardQueues } from "../../src/queue/shards.ts";
import { KeyScheme, StoreInputError } from "../../src/store/index.ts";
import { hashedPart, keySlot, SLOT_COUNT, slotSpreadTag } from "../../src/store/key-slot.ts";

// cluster-key-slot ships without types; it is the slot function ioredis's Cluster routes by.
const referenceSlot = createRequire(import.meta.url)("cluster-key-slot") as (key: string) => number;

describe("keySlot", () => {
  it("is Redis's CRC16 slot: the documented test vector, and hash tags as the cluster spec reads them", () => {
    // CRC16/XMODEM of "123456789" is 0x31C3 (the Redis Cluster specification's check value).
    expect(keySlot("123456789")).toBe(0x31c3);
    expect(hashedPart("{user1000}.following")).toBe("user1000");
    expect(hashedPart("foo{}{bar}")).toBe("foo{}{bar}");
    expect(hashedPart("foo{{bar}}zap")).toBe("{bar");
    expect(hashedPart("foo{bar}{zap}")).toBe("bar");
    expect(hashedPart("no tag")).toBe("no tag");
    expect(hashedPart("open{only")).toBe("open{only");
  });

  it("agrees with the slot function ioredis routes by, for any key", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: "grapheme" }), (key) => {
        expect(keySlot(key)).toBe(referenceSlot(key));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("slotSpreadTag", () => {
  it("puts tag i of n in the middle of the i-th n-th of the slot space, the same tag every time", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.nat(), (parts, seed) => {
        const index = seed % parts;
        const tag = slotSpreadTag("q:turns:x", index, parts);
        const width = SLOT_COUNT / parts;
        const slot = keySlot(tag);
        expect(slot).toBeGreaterThanOrEqual(Math.floor(index * width));
        expect(slot).toBeLessThan(Math.ceil((index + 1) * width));
        expect(slotSpreadTag("q:turns:x", index, parts)).toBe(tag);
      }),
      { numRuns: 300 },
    );
  });

  it("spreads n shards over m evenly split masters as evenly as n allows (every n <= 64, m <= 12)", () => {
    const keys = new KeyScheme("sy");
    for (let masters = 1; masters <= 12; masters++) {
      for (let n = 1; n <= 64; n++) {
        // How redis-cli --cluster create splits the slots between masters.
        const load = new Array<number>(masters).fill(0);
        for (let shard = 0; shard < n; shard++) {
          const slot = keySlot(`${keys.turnQueuePrefix(shard, n)}:switchyard-turns:wait`);
          const master = Math.floor((slot * masters) / SLOT_COUNT);
          load[master] = (load[master] ?? 0) + 1;
        }
        const where = `${n} shards on ${masters} masters: ${load.join(", ")}`;
        expect(Math.max(...load), where).toBeLessThanOrEqual(Math.ceil(n / masters));
        if (n >= masters) expect(Math.min(...load), where).toBeGreaterThanOrEqual(1);
      }
    }
  });
});

describe("the queue layout", () => {
  it("never changes: producers and workers of every version must agree", () => {
    // Pinned: a change here strands every job queued under the old names.
    const keys = new KeyScheme("sy");
    expect([0, 1, 2, 3].map((shard) => keys.turnQueuePrefix(shard, 4))).toMatchSnapshot();
    expect(keys.turnQueuePrefix(0, 1)).toMatchSnapshot();
    // BullMQ's own layout under the prefix: the list KEDA and `switchyard doctor` name.
    expect(keys.turnWaitList(2, 4)).toBe(`${keys.turnQueuePrefix(2, 4)}:switchyard-turns:wait`);
    expect(keys.reminderQueuePrefix()).toBe("sy:{q:reminders}");
    expect(keys.queueLayouts()).toBe("sy:{q:layouts}");
    expect(keys.legacyQueuePrefix()).toBe("sy:bull");
    expect(
      ["console:local:terminal:main", "slack:T1:C1:1700000000.000100", "telegram:-100:-100:7"].map(
        (key) => shardOf(key, 8),
      ),
    ).toMatchSnapshot();
  });

  it("keeps every key of a shard's queue in one slot and every shard count's queues apart", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.nat(),
        fc.constantFrom("wait", "active", "meta", "id", "events", "marker", "job-1", "job-1:lock"),
        (shards, seed, suffix) => {
          const keys = new KeyScheme("sy-prod");
          const shard = seed % shards;
          const prefix = keys.turnQueuePrefix(shard, shards);
          expect(keySlot(`${prefix}:switchyard-turns:${suffix}`)).toBe(keySlot(`${prefix}:x`));
          expect(prefix.startsWith("sy-prod:{q:turns:")).toBe(true);
          if (shards > 1)
            expect(keys.turnQueuePrefix(0, shards)).not.toBe(keys.turnQueuePrefix(0, shards - 1));
        },
      ),
    );
  });

  it("refuses a shard that does not exist, saying which do", () => {
    const keys = new KeyScheme("sy");
    expect(() => keys.turnQueuePrefix(4, 4)).toThrow(
      new StoreInputError("Shard 4 does not exist with 4 shards: shards are numbered 0 to 3."),
    );
    expect(() => keys.turnQueuePrefix(0, 0)).toThrow(StoreInputError);
    expect(() => keys.turnQueuePrefix(1.5, 4)).toThrow(StoreInputError);
  });

  it("says why a prefix with a hash tag is refused", () => {
    expect(() => new KeyScheme("{sy}")).toThrow(
      /Do not add a \{hash tag\} for a Redis Cluster: Switchyard tags its keys itself/,
    );
  });
});

describe("shardOf", () => {
  it("puts a conversation on one shard in range, and spreads many conversations over all of them", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 256 }), (key, shards) => {
        const shard = shardOf(key, shards);
        expect(Number.isInteger(shard) && shard >= 0 && shard < shards).toBe(true);
        expect(shardOf(key, shards)).toBe(shard);
      }),
    );
    const counts = new Array<number>(4).fill(0);
    for (let c = 0; c < 4_000; c++) {
      const shard = shardOf(`slack:T1:C${c % 7}:${c}`, 4);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it("takes every shard by default, or the subset named", () => {
    const keys = new KeyScheme("sy");
    expect(shardQueues(keys, 3).map((q) => q.shard)).toEqual([0, 1, 2]);
    expect(shardQueues(keys, 4, [1, 3]).map((q) => [q.shard, q.shards])).toEqual([
      [1, 4],
      [3, 4],
    ]);
  });

  it("defaults to one shard on one node and one per master on a cluster", () => {
    expect(defaultShardCount("single", 1)).toBe(1);
    expect(defaultShardCount("sentinel", 1)).toBe(1);
    expect(defaultShardCount("cluster", 3)).toBe(3);
    expect(defaultShardCount("cluster", 0)).toBe(1);
  });
});
