import { afterEach, describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";

const THREAD = "1300000000000000077";
const GONE = "1300000000000000050";
/** The fake's DM channel with HUMAN (see POST /users/@me/channels in discord-rest.ts). */
const HUMAN_DM = `14${HUMAN.slice(2)}`;

let setup: DiscordSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One schedule that ticks every second, run once (`max_runs`) or until it pauses. */
function config(id: string, target: string, maxRuns?: number): SwitchyardConfig {
  return parseConfig(
    [
      "schedules:",
      `  - id: ${id}`,
      `    target: { platform: discord, workspace: "${FAKE_DISCORD.guildId}", ${target} }`,
      "    prompt: Summarise the deploy queue.",
      '    cron: "* * * * * *"',
      `    owner: "${HUMAN}"`,
      ...(maxRuns !== undefined ? [`    max_runs: ${maxRuns}`] : []),
    ].join("\n"),
    "switchyard.yaml",
  );
}

async function start(cfg: SwitchyardConfig): Promise<DiscordSetup> {
  setup = await startDiscordBot({ config: () => cfg, pipeline: { config: () => cfg } });
  return setup;
}

function scheduleOf(s: DiscordSetup, id: string) {
  return new ScheduleStore(s.pipe.app.redis, s.pipe.app.store.keys).get(id);
}

async function pausedIn(s: DiscordSetup, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const paused = (await scheduleOf(s, id))?.paused;
    if (paused) return paused;
    if (Date.now() > deadline) throw new Error(`schedule ${id} was not paused in ${timeoutMs} ms`);
    await settle(50);
  }
}

describe("Discord schedules", () => {
  it("posts a scheduled answer once into the thread its config names", async () => {
    const s = await start(
      config("queue-check", `channel: "${FAKE_DISCORD.channelId}", thread: "${THREAD}"`, 1),
    );
    const [answer] = await until(() => {
      const texts = botPosts(s.discord, THREAD).map((m) => m.content);
      return texts.length > 0 ? texts : undefined;
    });
    expect(answer).toContain('Scheduled run of "queue-check"');
    expect(answer).toContain("Summarise the deploy queue.");
    await settle(2_500);
    expect(botPosts(s.discord, THREAD)).toHaveLength(1);
    expect(botPosts(s.discord, FAKE_DISCORD.channelId)).toEqual([]);
    expect(s.pipe.fake.requests).toHaveLength(1);
    expect((await scheduleOf(s, "queue-check"))?.ended).toBe("max_runs");
  });

  it("pauses a schedule whose channel was deleted and tells its owner once, in a DM", async () => {
    const s = await start(config("standup", `channel: "${GONE}"`));
    s.discord.guilds[0]?.channels.push({ id: GONE, name: "old-incidents", gone: true });
    await pausedIn(s, "standup");
    const notice = await until(() => botPosts(s.discord, HUMAN_DM)[0]?.content);
    expect(notice).toBe(
      'Schedule "standup" is paused: the bot can no longer post in its target (Discord: Unknown Channel (10003)). It will not run again until it is resumed.',
    );
    const tries = () =>
      s.discord.calls.filter((c) => c.method === "POST" && c.path === `/channels/${GONE}/messages`)
        .length;
    const triedBeforePause = tries();
    // Ticks keep coming every second: none runs, nothing is retried, the owner is told once.
    await settle(2_500);
    expect(tries()).toBe(triedBeforePause);
    const state = await scheduleOf(s, "standup");
    expect(state?.paused?.reason).toBe(
      "the bot can no longer post in its target (Discord: Unknown Channel (10003)).",
    );
    expect(state?.runs).toBe(1);
    expect(s.pipe.fake.requests).toHaveLength(1);
    expect(botPosts(s.discord, HUMAN_DM)).toHaveLength(1);
  });
});
