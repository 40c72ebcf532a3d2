import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventLedger } from "../../src/channels/event-ledger.ts";
import { RedisFactory } from "../../src/redis/redis-factory.ts";
import { type SpawnedRedis, spawnRedis } from "../../src/redis/redis-spawn.ts";
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
  dataDir = await mkdtemp(join(tmpdir(), "switchyard-event-ledger-"));
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
    proxy.dropReplyTo("update:2");
    expect(await ledger.claim("update:2")).toBe("fresh");
    expect(proxy.dropped).toBe(1);
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
