import { describe, expect, it } from "vitest";
import { STORM_EXIT_CODE } from "../../src/observability/process-guard.ts";
import { type FakeDiscord, startFakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import { botPosts, callbackOf, fixture, HUMAN } from "../support/discord.ts";
import { type StartedCommand, useStartCommand } from "../support/start-command.ts";
import { freePort } from "../support/switchyard-process.ts";

const DM_CHANNEL = "1300000000000000099";
const bot = useStartCommand();

interface Running extends StartedCommand {
  discord: FakeDiscord;
  metricsPort: number;
}

/** `switchyard start` with DISCORD_TOKEN against the fake Discord and model, once its channel runs. */
async function run(answer: string): Promise<Running> {
  const discord = await startFakeDiscord({ users: { [HUMAN]: { username: "ada" } } });
  bot.cleanup(() => discord.close());
  const metricsPort = await freePort();
  const started = await bot.start(
    {
      SWITCHYARD_METRICS_PORT: String(metricsPort),
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
    },
    answer,
  );
  return { ...started, discord, metricsPort };
}

const metricsOf = (port: number) => fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());

describe("switchyard start with DISCORD_TOKEN", () => {
  it("outlives an unparseable interaction and a library's async throw, counts both, and still answers", async () => {
    const { discord, metricsPort, logs } = await run("still here");
    // discord.js cannot parse this one (no member, no user): the channel drops and answers it.
    const broken = fixture("interaction-docs-slash-command").d;
    delete broken.member;
    discord.dispatch("INTERACTION_CREATE", broken);
    await until(() => callbackOf(discord, broken.token));
    // @discordjs/ws reads READY's d.session_id in an async handler: a rejection nobody awaits.
    discord.dispatch("READY", null);
    await until(() =>
      logs().includes("a promise rejected with nobody waiting") ? true : undefined,
    );

    expect(await fetch(`http://127.0.0.1:${metricsPort}/healthz`).then((r) => r.status)).toBe(200);
    const metrics = await metricsOf(metricsPort);
    expect(metrics).toContain('switchyard_process_errors_total{kind="unhandledRejection"} 1');
    expect(metrics).toContain(
      'switchyard_channel_errors_total{platform="discord",stage="gateway"} 1',
    );
    discord.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: "hello?" });
    await until(() =>
      botPosts(discord, DM_CHANNEL).some((m) => m.content === "still here") ? true : undefined,
    );
    expect(discord.identifies).toBe(1);
    expect(logs()).not.toContain(discord.token);
  }, 60_000);

  it(`exits with code ${STORM_EXIT_CODE} under a storm of uncaught errors, so a supervisor restarts it`, async () => {
    const { discord, exited, logs } = await run("unused");
    for (let i = 0; i < 11; i++) discord.dispatch("READY", null);
    expect(await exited).toBe(STORM_EXIT_CODE);
    expect(logs()).toContain("11 uncaught errors within 60 s: this process is broken");
  }, 60_000);
});
