import { afterEach, describe, expect, it } from "vitest";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { uniquePrefix } from "../support/redis.ts";
import {
  type CrashWorkers,
  startCrashWorkers,
  toolThenHang,
  typedMessage,
} from "../support/worker-crash.ts";

let discord: FakeDiscord | undefined;
let fake: FakeOpenAI | undefined;
let crash: CrashWorkers | undefined;
afterEach(async () => {
  await crash?.close("SIGKILL");
  await fake?.close();
  await discord?.close();
  crash = fake = discord = undefined;
});

const address = {
  platform: "discord",
  workspace: FAKE_DISCORD.guildId,
  channel: FAKE_DISCORD.channelId,
  conversation: FAKE_DISCORD.channelId,
};

const botMessages = (d: FakeDiscord) =>
  d.messages
    .filter((m) => m.channel_id === address.channel && m.author.id === FAKE_DISCORD.botUserId)
    .map((m) => m.content);

describe("a Discord status line across a worker killed mid-turn", () => {
  it("is deleted by the worker that resumes the turn: the answer stands alone", async () => {
    discord = await startFakeDiscord();
    const model = toolThenHang("It is noon.");
    fake = await startFakeOpenAI({ responder: model.responder });
    crash = await startCrashWorkers(fake, uniquePrefix("crashline"), {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
    });
    await crash.enqueue(typedMessage(address, "what time is it?"));
    // The tool ran (its line is up) and the next model request hangs: kill that worker.
    await until(() => (model.afterTool() >= 1 ? true : undefined), 15_000);
    await until(() => (botMessages(discord as FakeDiscord).length ? true : undefined));
    expect(botMessages(discord)).toEqual(["Using current_time…"]);
    await crash.killLeaseHolder(address);
    await until(
      () => (botMessages(discord as FakeDiscord).includes("It is noon.") ? true : undefined),
      20_000,
    );
    await until(() => (botMessages(discord as FakeDiscord).length === 1 ? true : undefined));
    expect(botMessages(discord)).toEqual(["It is noon."]);
    const lines = discord.calls.filter(
      (c) => c.method === "POST" && c.body?.content === "Using current_time…",
    );
    expect(lines).toHaveLength(1);
    expect(discord.calls.filter((c) => c.method === "DELETE" && c.status === 204)).toHaveLength(1);
    // The record of the line is gone with it.
    const left = await crash.redis.keys(`${crash.prefix}*:status:*`);
    expect(left).toEqual([]);
  }, 45_000);
});
