import { Client } from "discord.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolActivity } from "../../src/core/delivery/activity.ts";
import { TurnStatus } from "../../src/delivery/turn-status.ts";
import { DiscordOutbound } from "../../src/platforms/discord/outbound.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore } from "../../src/store/index.ts";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import { botPosts, CHANNEL_ADDRESS } from "../support/discord.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const redis = connectRedis();
const prefix = uniquePrefix("lineLease");
const store = createStore(redis, { prefix });
const inbox = new Inbox(redis, store.keys);
const env = { inbox, store };
afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

const CHANNEL = FAKE_DISCORD.channelId;
const address = CHANNEL_ADDRESS;
const where = { address, target: address };
const messagesPath = new RegExp(`^/channels/${CHANNEL}/messages$`);
const messagePath = new RegExp(`^/channels/${CHANNEL}/messages/\\d+$`);
const ANSWER = "Here is what I found.";
const LINE = "Searching the web…";

let discord: FakeDiscord;
const clients: Client[] = [];
beforeEach(async () => {
  discord = await startFakeDiscord();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.destroy()));
  await discord.close();
});

/** One worker's way to Discord: REST with the token, no gateway session. */
function workerOutbound(): DiscordOutbound {
  const client = new Client({ intents: [], rest: { api: discord.apiUrl } });
  client.rest.setToken(discord.token);
  clients.push(client);
  return new DiscordOutbound(client, discord.apiUrl);
}

/**
 * A worker takes the turn over once the first run's lease ran out (its key
 * gone, as one nobody renews goes): it shows the line, answers, deletes the
 * line and lets the conversation go.
 */
async function takeOver(turnId: string): Promise<void> {
  await redis.del(store.keys.conversation(address).lease);
  expect(await inbox.acquire(address, "run-b", 60_000)).toBe(true);
  const outbound = workerOutbound();
  const status = await TurnStatus.open(env, outbound, where, {
    turnId,
    resumed: true,
    leaseToken: "run-b",
  });
  const shown = discord.waitForCall("POST", messagesPath, { after: discord.calls.length });
  status.tool(toolActivity("web_search", {}))();
  await shown;
  status.pause();
  await outbound.post(where.target, ANSWER, { idempotencyKey: `${turnId}-0` });
  await status.end();
  expect(await inbox.release(address, "run-b")).toBe(0);
  expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual([ANSWER]);
  expect(discord.calls.filter((c) => c.method === "DELETE")).toHaveLength(1);
}

const posted = () =>
  discord.calls
    .filter((c) => c.method === "POST" && messagesPath.test(c.path))
    .map((c) => c.body?.content);

describe("a Discord status line and the conversation's lease", () => {
  it("a run whose lease lapsed, coming to its post after the run that took over answered and deleted the line, posts nothing", async () => {
    const turnId = "turn-lapsed";
    // The first run holds the lease; its line waits for its turn to be stored (held here).
    expect(await inbox.acquire(address, "run-a", 60_000)).toBe(true);
    let stored = () => {};
    const storedLate = new Promise<void>((resolve) => {
      stored = resolve;
    });
    const lapsed = await TurnStatus.open(env, workerOutbound(), where, {
      turnId,
      resumed: false,
      leaseToken: "run-a",
      stored: () => storedLate,
    });
    lapsed.tool(toolActivity("web_search", {}));
    // It is slow, not dead: its lease runs out and the turn is taken over and answered
    // before its worker renews, so nothing has told it.
    await takeOver(turnId);

    // Only now does the lapsed run come to its post. Awaiting the promise its line waits on
    // resumes the test after the line's own checks ran (reactions run in order): it ends its
    // status after its post started, as a run whose answer (under the turn's key, there
    // already) went out would. One that learns of its lease first would leave its line.
    stored();
    await storedLate;
    await lapsed.end();
    expect(posted()).toEqual([LINE, ANSWER]);
    expect(discord.calls.filter((c) => c.method === "DELETE")).toHaveLength(1);
    expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual([ANSWER]);
    expect(await redis.exists(store.keys.turnStatusLine(address, turnId))).toBe(0);
  });

  it("a run whose post was on its way when the run that took over deleted the line deletes the line its post made", async () => {
    const turnId = "turn-late";
    expect(await inbox.acquire(address, "run-a", 60_000)).toBe(true);
    const lease = new AbortController();
    // Its post sets out while it holds the lease, and is held on the way.
    const held = discord.hold("POST", messagesPath);
    const late = await TurnStatus.open(env, workerOutbound(), where, {
      turnId,
      resumed: false,
      leaseToken: "run-a",
      signal: lease.signal,
    });
    late.tool(toolActivity("web_search", {}));
    await held.arrived;
    // Meanwhile its lease runs out and its worker learns so: its turn stops, the status is
    // paused and never ended.
    lease.abort();
    late.pause();
    await takeOver(turnId);
    // Its post reaches Discord now, after the line's delete: a message of its own.
    const after = discord.calls.length;
    held.release();
    await discord.waitForCall("DELETE", messagePath, { after });
    expect(posted()).toEqual([LINE, ANSWER, LINE]);
    expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual([ANSWER]);
    expect(await redis.exists(store.keys.turnStatusLine(address, turnId))).toBe(0);
  });
});
