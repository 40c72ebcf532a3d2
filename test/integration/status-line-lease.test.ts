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
import { botPosts } from "../support/discord.ts";
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
const address = {
  platform: "discord",
  workspace: FAKE_DISCORD.guildId,
  channel: CHANNEL,
  conversation: CHANNEL,
};
const where = { address, target: address };
const messagesPath = new RegExp(`^/channels/${CHANNEL}/messages$`);

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

describe("a Discord status line and the conversation's lease", () => {
  it("a run whose lease lapsed, coming to its post after the run that took over answered and deleted the line, posts nothing", async () => {
    const turnId = "turn-lapsed";
    const lease = store.keys.conversation(address).lease;
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
    // It is slow, not dead: its lease runs out (the key goes, as one nobody renews does)
    // without its worker having looked yet, so nothing has told it.
    await redis.del(lease);
    // Another worker takes the turn over, shows the line, answers, deletes the line, lets go.
    expect(await inbox.acquire(address, "run-b", 60_000)).toBe(true);
    const taker = workerOutbound();
    const status = await TurnStatus.open(env, taker, where, {
      turnId,
      resumed: true,
      leaseToken: "run-b",
    });
    status.tool(toolActivity("web_search", {}))();
    await discord.waitForCall("POST", messagesPath);
    status.pause();
    await taker.post(where.target, "Here is what I found.", { idempotencyKey: `${turnId}-0` });
    await status.end();
    expect(await inbox.release(address, "run-b")).toBe(0);
    expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual(["Here is what I found."]);
    const deletes = discord.calls.filter((c) => c.method === "DELETE");
    expect(deletes).toHaveLength(1);

    // Only now does the lapsed run come to its post; nothing has told it of its lease yet.
    // Awaiting the same promise its line waits on resumes the test after the line's own
    // checks ran (reactions run in order): it ends its status after its post started, as a
    // run whose answer (under the turn's key, already there) went out would. Left at that,
    // a run that learns of its lease first leaves the line it posted.
    stored();
    await storedLate;
    await lapsed.end();
    const lines = discord.calls.filter(
      (c) => c.method === "POST" && messagesPath.test(c.path) && c.body?.content !== undefined,
    );
    expect(lines.map((c) => c.body.content)).toEqual([
      "Searching the web…",
      "Here is what I found.",
    ]);
    expect(discord.calls.filter((c) => c.method === "DELETE")).toEqual(deletes);
    expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual(["Here is what I found."]);
    expect(await redis.exists(store.keys.turnStatusLine(address, turnId))).toBe(0);
  });
});
