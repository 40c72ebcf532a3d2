import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { Events } from "discord.js";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { DiscordChannel } from "../../src/platforms/discord/channel.ts";
import { pickId, switchId } from "../../src/platforms/discord/custom-id.ts";
import { createStore } from "../../src/store/index.ts";
import { FAKE_DISCORD, type FakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import {
  callbackOf,
  click,
  type DiscordSetup,
  interact,
  interactionPayload,
  MANAGE_SERVER,
  shown,
  slash,
  startDiscordBot,
} from "../support/discord.ts";

const running: DiscordSetup[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const setup of running.splice(0)) await setup.close();
});

async function start(options: Parameters<typeof startDiscordBot>[0] = {}) {
  const setup = await startDiscordBot(options);
  running.push(setup);
  return setup;
}

const callbacks = (discord: FakeDiscord, token: string) =>
  discord.calls.filter((c) => c.method === "POST" && c.path.includes(`/${token}/callback`));

/** Follow-up messages sent for an interaction (a click's error goes there). */
const followUps = (discord: FakeDiscord, token: string) =>
  discord.calls.filter(
    (c) => c.method === "POST" && c.path === `/webhooks/${FAKE_DISCORD.applicationId}/${token}`,
  );

/** A TCP server that takes connections and never says a word: a Redis that hangs. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A store whose Redis never answers (`hang`) or refuses every command at once (`refuse`). */
async function brokenStore(kind: "hang" | "refuse", prefix: string) {
  const silent = await silentServer();
  if (kind === "refuse") await silent.close();
  const redis = new Redis({
    host: "127.0.0.1",
    port: silent.port,
    lazyConnect: kind === "refuse",
    enableOfflineQueue: kind === "hang",
    maxRetriesPerRequest: null,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  cleanups.push(
    () => redis.disconnect(),
    () => silent.close().catch(() => {}),
  );
  return createStore(redis, { prefix });
}

/** The bot with a store that fails in the given way for the channel; the ledger keeps the real Redis. */
async function startWithStore(kind: "hang" | "refuse") {
  const store = await brokenStore(kind, "unused");
  return start({
    channel: { interactionDeadlineMs: 400 },
    runtime: (runtime) => ({ ...runtime, sources: { ...runtime.sources, store } }),
  });
}

describe("every interaction the bot receives gets an answer", () => {
  it("answers a bare /tools (no subcommand) with the list, not an endless 'thinking…'", async () => {
    const { discord } = await start();
    const token = interact(discord, {
      type: 2,
      data: { id: "1500000000000000001", name: "tools", type: 1 },
    });
    expect((await until(() => callbackOf(discord, token))).type).toBe(5);
    expect((await until(() => shown(discord, token))).content).toMatch(/^2 of 2 tools available/);
  });

  it("answers a command name it does not own at once, ephemeral, saying so", async () => {
    const { discord } = await start();
    const token = interact(discord, {
      type: 2,
      data: { id: "1500000000000000009", name: "weather", type: 1 },
    });
    const answer = await until(() => callbackOf(discord, token));
    expect(answer).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(answer.data?.content).toBe(
      "/weather is not one of my commands, so nothing was done. Mine are /help, /tools and /skills; /help lists the rest.",
    );
  });

  it("answers a component it does not own, and a modal submit, at once, ephemeral", async () => {
    const { discord } = await start();
    const button = interact(discord, { type: 3, data: click("click_me") });
    const modal = interact(discord, {
      type: 5,
      data: {
        custom_id: "bug_modal",
        components: [
          { type: 18, id: 1, component: { type: 4, id: 2, custom_id: "bug", value: "it broke" } },
        ],
      },
    });
    const clicked = await until(() => callbackOf(discord, button));
    expect(clicked).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(clicked.data?.content).toMatch(/^That control is not one of mine/);
    const submitted = await until(() => callbackOf(discord, modal));
    expect(submitted).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(submitted.data?.content).toMatch(/^I don't open forms/);
  });

  it("edits the deferred answer into an error when the command's handler throws", async () => {
    const { discord, failures, warnings } = await startWithStore("refuse");
    const token = interact(discord, { type: 2, data: slash("tools", "list") });
    const edited = await until(() => shown(discord, token));
    expect(edited.content).toMatch(/^Something went wrong answering \/tools/);
    expect(callbacks(discord, token)).toHaveLength(1);
    expect(failures).toContain("interaction");
    expect(warnings.join("\n")).toMatch(/a Discord interaction failed/);
  });

  it("edits the deferred answer into an error when the handler hangs past the deadline", async () => {
    const { discord } = await startWithStore("hang");
    const token = interact(discord, { type: 2, data: slash("tools", "why", { tool: "lookup" }) });
    expect((await until(() => callbackOf(discord, token))).type).toBe(5);
    const edited = await until(() => shown(discord, token));
    expect(edited.content).toMatch(/^Answering \/tools is taking too long, so I stopped waiting/);
  });

  it("tells a click whose handler fails, in a follow-up, and keeps the list it came from", async () => {
    const { discord } = await startWithStore("refuse");
    const token = interact(discord, {
      type: 3,
      data: click(pickId("tools", "conversation", 0), ["lookup"]),
    });
    const sent = await until(() => followUps(discord, token)[0]);
    expect(sent.body).toMatchObject({ flags: 64 });
    expect(sent.body.content).toMatch(/^Something went wrong answering the click/);
    // The list message itself was deferred (type 6), not overwritten.
    expect(callbacks(discord, token).map((c) => c.body.type)).toEqual([6]);
    expect(shown(discord, token)).toBeUndefined();
  });
});

describe("an interaction Discord delivers twice", () => {
  it("runs and answers once when the gateway replays it after a RESUME", async () => {
    const { discord, channel } = await start();
    const off = interactionPayload({
      type: 2,
      data: slash("tools", "off", { tool: "lookup", scope: "channel" }),
      permissions: MANAGE_SERVER,
    });
    discord.dispatch("INTERACTION_CREATE", off);
    expect((await until(() => shown(discord, off.token))).content).toContain("lookup is now off");

    const resumed = once(channel.client, Events.ShardResume);
    discord.reconnect();
    await resumed;
    discord.dispatch("INTERACTION_CREATE", off);
    // Handled in order after the replay: once this is answered, the replay was handled too.
    const later = interact(discord, { type: 2, data: slash("tools", "list") });
    await until(() => shown(discord, later));
    expect(callbacks(discord, off.token)).toHaveLength(1);
    expect(callbacks(discord, off.token)[0]?.status).toBe(204);
  });

  it("runs once when two ingress processes both receive it: a command, a click, an autocompletion", async () => {
    const first = await start();
    const { discord, runtime } = first;
    const second = new DiscordChannel({ token: discord.token, apiUrl: discord.apiUrl });
    await second.start(runtime);
    cleanups.push(() => second.stop());
    expect(discord.identifies).toBe(2);

    const list = interact(discord, { type: 2, data: slash("tools", "list") });
    const pick = interact(discord, {
      type: 3,
      data: click(pickId("tools", "conversation", 0), ["lookup"]),
    });
    const off = interact(discord, {
      type: 3,
      data: click(switchId("tools", "off", "conversation", 0, "lookup")),
    });
    const complete = interact(discord, {
      type: 4,
      data: slash("tools", "why", { tool: "lo" }, "tool"),
    });
    await until(() => shown(discord, list));
    await until(() => shown(discord, off));
    await until(() => callbackOf(discord, complete));
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const token of [list, pick, off, complete]) {
      expect(callbacks(discord, token).map((c) => c.status)).toEqual([204]);
    }
    expect(first.warnings.join("\n")).not.toMatch(/40060|already been acknowledged/);
  });
});
