import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  begunAt,
  countPickup,
  MAX_STALLED_PICKUPS,
  stalled,
  unbegunAt,
} from "../../src/store/pickups.ts";
import { GAVE_UP, GAVE_UP_PARTIAL, giveUpText } from "../../src/turn/resume.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("resume");
const address = { platform: "console", workspace: "w", channel: "c", conversation: "k" };
const checkpoint: Checkpoint = {
  v: 1,
  turnId: "t1",
  step: 1,
  historyStart: 0,
  inboxCount: 1,
  contractHash: "h",
  loaded: [],
  delivered: [],
};
const message = (n: number): InboundMessage => ({
  ...address,
  user: "u",
  text: `message ${n}`,
  attachments: [],
  eventId: `e${n}`,
  time: n,
});

/** Counts pickups as workers would: each pickup under a lease token of its own. */
function pickups() {
  const keys = new KeyScheme(db.prefix);
  let lease = 0;
  const at = (where: string, takes = 1, token = `lease-${++lease}`) =>
    countPickup(db.redis, keys, address, { at: where, token, takes });
  return { keys, at, count: async (where: string) => (await at(where)).count };
}

describe("counting a turn's pickups after crashes", () => {
  it("counts only pickups that find the turn where the last one left it", async () => {
    const { count } = pickups();
    const resumed = (c: Checkpoint) => count(begunAt(c));
    expect(await resumed(checkpoint)).toBe(1);
    expect(await resumed(checkpoint)).toBe(2);
    // A step was committed between these pickups: the turn is moving, start over.
    expect(await resumed({ ...checkpoint, step: 2 })).toBe(1);
    expect(await resumed({ ...checkpoint, step: 2 })).toBe(2);
    // So does a part delivered, or calls recorded before running.
    expect(await resumed({ ...checkpoint, step: 2, delivered: ["ts1"] })).toBe(1);
    const calling = { step: 3, message: { role: "assistant" as const, content: null } };
    expect(await resumed({ ...checkpoint, step: 2, delivered: ["ts1"], calling })).toBe(1);
    // Another turn of the same conversation has its own count.
    expect(await resumed({ ...checkpoint, turnId: "t2" })).toBe(1);
  });

  it("counts a turn not yet begun by its first message, whatever joined it since, until it begins", async () => {
    const { count } = pickups();
    expect(await count(unbegunAt([message(1)]))).toBe(1);
    // A message came while the worker was dying: the same first message, the same count.
    expect(await count(unbegunAt([message(1), message(2)]))).toBe(2);
    expect(await count(unbegunAt([message(1), message(2)]))).toBe(3);
    // The turn began (its checkpoint was written): its first resume starts over.
    expect(await count(begunAt(checkpoint))).toBe(1);
    // The next turn, at the next message, has its own count.
    expect(await count(unbegunAt([message(2)]))).toBe(1);
  });

  it("gives up past the limit: three pickups that died are run, the fourth is not", async () => {
    const { at } = pickups();
    const found = [];
    for (let i = 0; i <= MAX_STALLED_PICKUPS; i++) found.push(stalled(await at("new:e1")));
    expect(found).toEqual([false, false, false, true]);
  });

  it("counts the same pickup once when it is counted again under the same lease", async () => {
    const { at } = pickups();
    expect((await at("new:e1", 1, "lease-a")).count).toBe(1);
    expect((await at("new:e1", 1, "lease-b")).count).toBe(2);
    // The command was resent after a lost reply (see lost-replies.test.ts): still the second pickup.
    expect((await at("new:e1", 1, "lease-b")).count).toBe(2);
    expect((await at("new:e1", 1, "lease-c")).count).toBe(3);
  });

  it("remembers how many messages the first pickup took", async () => {
    const { at } = pickups();
    expect(await at("new:e1", 2)).toEqual({ count: 1, took: 2 });
    expect(await at("new:e1", 5)).toEqual({ count: 2, took: 2 });
    expect(await at("new:e3", 1)).toEqual({ count: 1, took: 1 });
  });

  it("starts over on a damaged count instead of failing every pickup", async () => {
    const { keys, count } = pickups();
    await db.redis.set(keys.conversation(address).pickups, "not a hash");
    expect(await count("new:e1")).toBe(1);
    expect(await count("new:e1")).toBe(2);
    // And the count does not outlive a day without pickups.
    const ttl = await db.redis.pttl(keys.conversation(address).pickups);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400_000);
  });
});

describe("dropping messages given up before their turn began", () => {
  it("drops the turn's messages and their count once, keeping the messages after them", async () => {
    const { keys, count } = pickups();
    const inbox = new Inbox(db.redis, keys);
    for (const n of [1, 2, 3]) await inbox.push(message(n), n);
    expect(await inbox.acquire(address, "lease-x", 60_000)).toBe(true);
    await count("new:e1");
    expect(await inbox.drop(address, "lease-x", "e1", 2)).toBe(true);
    // Run again: message 3 is first now, so nothing more goes.
    expect(await inbox.drop(address, "lease-x", "e1", 2)).toBe(true);
    expect((await inbox.pending(address)).map((m) => m.eventId)).toEqual(["e3"]);
    expect(await db.redis.exists(keys.conversation(address).pickups)).toBe(0);
  });

  it("drops nothing without the lease", async () => {
    const { keys } = pickups();
    const inbox = new Inbox(db.redis, keys);
    await inbox.push(message(1), 1);
    expect(await inbox.acquire(address, "lease-x", 60_000)).toBe(true);
    expect(await inbox.drop(address, "lease-y", "e1", 1)).toBe(false);
    expect((await inbox.pending(address)).map((m) => m.eventId)).toEqual(["e1"]);
  });
});

describe("what a turn given up says", () => {
  it("delivers the answer when only delivery was left", () => {
    const turn = [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "Hello there." },
    ];
    expect(giveUpText(turn, "Hello")).toBe("Hello there.");
  });

  it("finishes a streamed partial with a note, or apologises when nothing was shown", () => {
    const turn = [
      { role: "user" as const, content: "hi" },
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          { id: "c", type: "function" as const, function: { name: "x", arguments: "{}" } },
        ],
      },
    ];
    expect(giveUpText(turn, "Half of the")).toBe(`Half of the\n\n${GAVE_UP_PARTIAL}`);
    expect(giveUpText(turn, undefined)).toBe(GAVE_UP);
    expect(giveUpText(turn, "  ")).toBe(GAVE_UP);
  });
});
