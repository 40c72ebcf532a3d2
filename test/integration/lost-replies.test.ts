import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventLedger } from "../../src/ingress/event-ledger.ts";
import { type SpawnedRedis, spawnRedis } from "../../src/ops/redis/redis-spawn.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { countPickup } from "../../src/store/pickups.ts";
import { RedisFactory } from "../../src/store/redis/redis-factory.ts";
import {
  type ReplyDroppingProxy,
  startReplyDroppingProxy,
} from "../support/reply-dropping-proxy.ts";

let dataDir: string;
let server: SpawnedRedis;
let proxy: ReplyDroppingProxy;
let ingress: Redis;
let other: Redis;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "switchyard-lost-replies-"));
  server = await spawnRedis({ dataDir, persist: false });
  proxy = await startReplyDroppingProxy(server.url);
  // Connections as `switchyard start` makes them: a command cut off by a dropped link is sent again.
  ingress = RedisFactory.single(proxy.url).create("queue");
  ingress.on("error", () => {});
  other = RedisFactory.single(server.url).create("queue");
}, 30_000);
afterAll(async () => {
  ingress?.disconnect();
  other?.disconnect();
  await proxy?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the event ledger when Redis took a claim and its answer was lost", () => {
  it("takes the event on the claim sent again, instead of finding its own claim and holding the event for a minute", async () => {
    const ledger = new EventLedger(ingress, "sy:telegram:1");
    // The claim's script is loaded, so the claim below is one command.
    expect(await ledger.claim("update:1")).toBe("fresh");
    // Redis runs the claim and dies before answering (kill -9 after its fsync); the
    // client reconnects to the restarted Redis and sends the claim again.
    const dropped = proxy.dropped;
    proxy.dropReplyTo("update:2");
    expect(await ledger.claim("update:2")).toBe("fresh");
    expect(proxy.dropped).toBe(dropped + 1);
    // Anyone else still finds it being taken, then taken.
    const elsewhere = new EventLedger(other, "sy:telegram:1");
    expect(await elsewhere.claim("update:2")).toBe("taking");
    await ledger.done("update:2");
    expect(await elsewhere.claim("update:2")).toBe("done");
  });

  it("lets go of a claim whose take failed, so the platform's redelivery takes it", async () => {
    const ledger = new EventLedger(ingress, "sy:telegram:1");
    expect(await ledger.claim("update:3")).toBe("fresh");
    await ledger.release("update:3");
    expect(await new EventLedger(other, "sy:telegram:1").claim("update:3")).toBe("fresh");
  });
});

describe("a turn's end when Redis ran it and its answer was lost", () => {
  it("trims the turn's messages once, so the message that came during the turn is still answered", async () => {
    const keys = new KeyScheme("sy");
    const inbox = new Inbox(ingress, keys);
    const address = { platform: "telegram", workspace: "7", channel: "7", conversation: "7" };
    const message = (n: number) => ({
      ...address,
      user: "7",
      text: `message ${n}`,
      attachments: [],
      eventId: `e${n}`,
      time: n,
    });
    for (const n of [1, 2, 3]) await inbox.push(message(n), n);
    const token = "job-1|worker-finishing|lease";
    expect(await inbox.acquire(address, token, 60_000)).toBe(true);
    // The turn that took message 1 is in progress (its begin stored the checkpoint).
    await other.set(inbox.keysOf(address).checkpoint, "{}");
    // The script is loaded (a finish without the lease ends nothing), so the finish below is one command.
    expect((await inbox.finish({ ...address, conversation: "8" }, token, 0)).left).toBe(-1);
    const dropped = proxy.dropped;
    proxy.dropReplyTo("worker-finishing");
    // Redis ends the turn and dies before answering; the same end is sent again.
    expect((await inbox.finish(address, token, 1)).left).toBe(2);
    expect(proxy.dropped).toBe(dropped + 1);
    expect((await inbox.pending(address)).map((m) => m.text)).toEqual(["message 2", "message 3"]);
  });
});

describe("a poison-message count when Redis ran it and its answer was lost", () => {
  it("counts the pickup once, so a message is not given up a crash early", async () => {
    const keys = new KeyScheme("sy");
    const address = { platform: "telegram", workspace: "9", channel: "9", conversation: "9" };
    const pickup = (token: string) =>
      countPickup(ingress, keys, address, { at: "new:9:1", token, takes: 1 });
    expect((await pickup("job-1|worker-a|lease")).count).toBe(1);
    const dropped = proxy.dropped;
    proxy.dropReplyTo("worker-b");
    // Redis counts the second pickup and dies before answering; the same count is sent again.
    expect(await pickup("job-1|worker-b|lease")).toEqual({ count: 2, took: 1 });
    expect(proxy.dropped).toBe(dropped + 1);
    expect((await pickup("job-1|worker-c|lease")).count).toBe(3);
  });

  it("drops the messages given up once, so the message that came after them is still answered", async () => {
    const inbox = new Inbox(ingress, new KeyScheme("sy"));
    const address = { platform: "telegram", workspace: "10", channel: "10", conversation: "10" };
    for (const n of [1, 2]) {
      const text = `message ${n}`;
      await inbox.push(
        { ...address, user: "10", text, attachments: [], eventId: `e${n}`, time: n },
        n,
      );
    }
    const token = "job-1|worker-dropping|lease";
    expect(await inbox.acquire(address, token, 60_000)).toBe(true);
    // The script is loaded (a drop without the lease drops nothing), so the drop below is one command.
    expect(await inbox.drop(address, "someone else", "e1", 1)).toBe(false);
    const dropped = proxy.dropped;
    proxy.dropReplyTo("worker-dropping");
    expect(await inbox.drop(address, token, "e1", 1)).toBe(true);
    expect(proxy.dropped).toBe(dropped + 1);
    expect((await inbox.pending(address)).map((m) => m.text)).toEqual(["message 2"]);
  });
});
