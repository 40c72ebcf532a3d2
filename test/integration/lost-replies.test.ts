import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventLedger } from "../../src/channels/event-ledger.ts";
import { RedisFactory } from "../../src/redis/redis-factory.ts";
import { type SpawnedRedis, spawnRedis } from "../../src/redis/redis-spawn.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { Inbox } from "../../src/workers/inbox.ts";
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
    expect(await inbox.finish({ ...address, conversation: "8" }, token, 0)).toBe(-1);
    const dropped = proxy.dropped;
    proxy.dropReplyTo("worker-finishing");
    // Redis ends the turn and dies before answering; the same end is sent again.
    expect(await inbox.finish(address, token, 1)).toBe(2);
    expect(proxy.dropped).toBe(dropped + 1);
    expect((await inbox.pending(address)).map((m) => m.text)).toEqual(["message 2", "message 3"]);
  });
});
