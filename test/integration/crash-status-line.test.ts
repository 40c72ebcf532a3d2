import { afterEach, describe, expect, it } from "vitest";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { CHANNEL_ADDRESS } from "../support/discord.ts";
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

const address = CHANNEL_ADDRESS;

const botMessages = (d: FakeDiscord) =>
  d.messages
    .filter((m) => m.channel_id === address.channel && m.author.id === FAKE_DISCORD.botUserId)
    .map((m) => m.content);

/** Kills the lease holder, unless the turn was answered first (see the test). */
async function killUnlessAnswered(c: CrashWorkers, d: FakeDiscord): Promise<void> {
  const lease = `${c.store.keys.conversationTag(address)}:lease`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (botMessages(d).includes("It is noon.")) return;
    const pid = Number((await c.redis.get(lease))?.split("|")[1]?.split(".")[0]);
    const victim = c.workers.find((w) => w.pid === pid);
    if (victim) {
      await victim.stop("SIGKILL");
      return;
    }
    if (Date.now() > deadline) throw new Error("no worker holds the lease, and no answer");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

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
    expect(botMessages(discord)[0]).toBe("Using current_time…");
    // Kill the worker in the middle of the turn. On a loaded machine its 1.5 s lease may have
    // lapsed already while the request hung, and the other worker resumed the turn and answered
    // it: the same path (the run that resumes the turn deletes the line), and nobody left to kill.
    await killUnlessAnswered(crash, discord);
    await until(
      () => (botMessages(discord as FakeDiscord).includes("It is noon.") ? true : undefined),
      20_000,
    );
    await until(() => (botMessages(discord as FakeDiscord).length === 1 ? true : undefined));
    expect(botMessages(discord)).toEqual(["It is noon."]);
    // One line made: a run whose lease lapsed may post it again, under the turn's nonce.
    const lines = discord.calls.filter(
      (c) => c.method === "POST" && c.body?.content === "Using current_time…",
    );
    expect(new Set(lines.map((c) => c.body?.nonce)).size).toBe(1);
    expect(discord.calls.filter((c) => c.method === "DELETE" && c.status === 204)).toHaveLength(1);
    // The record of the line goes with it, a moment after the delete (the run deletes the
    // message, then the record): waited for, then checked empty.
    const pattern = `${crash.prefix}*:status:*`;
    const deadline = Date.now() + 10_000;
    while ((await crash.redis.keys(pattern)).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await crash.redis.keys(pattern)).toEqual([]);
  }, 45_000);
});
