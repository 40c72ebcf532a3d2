/**
 * Two Discord bots in one deployment (`discord.accounts`): the bot of
 * DISCORD_TOKEN and a support bot bound to its own agent, in one guild.
 * Both see every message of the guild; each answers the mention of itself,
 * in its channel, through its own token, as its own agent; a message the
 * gateway delivers again after the ingress restarts is answered once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type DiscordMessage,
  FAKE_DISCORD,
  type FakeDiscord,
  type FakeDiscordBot,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { HUMAN } from "../support/discord.ts";
import { redisEnv, uniquePrefix } from "../support/redis.ts";
import { type SwitchyardProcess, startSwitchyardProcess } from "../support/switchyard-process.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";

const SUPPORT = {
  token: "fake-discord-support-token",
  applicationId: "1100000000000000002",
  botUserId: "1100000000000000002",
  botUsername: "support",
};
const GENERAL = FAKE_DISCORD.channelId;
const HELP = "1300000000000000002";
const PERSONA = "You are the support desk of Acme.";

/** The config both roles read: the support bot beside the one of DISCORD_TOKEN, as the support agent. */
function writeConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-discord-accounts-"));
  const file = join(dir, "switchyard.yaml");
  writeFileSync(
    file,
    [
      "agents:",
      "  - id: support",
      `    persona: ${PERSONA}`,
      "discord:",
      "  accounts:",
      "    - id: support",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
      "      token: ${DISCORD_SUPPORT_TOKEN}",
      "      agent: support",
      "",
    ].join("\n"),
  );
  return file;
}

/** Answers with the person's last words. */
const echo = (request: RecordedRequest) => {
  const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
  return { content: `echo: ${String(messages.findLast((m) => m.role === "user")?.content ?? "")}` };
};

/** Every bot's replies to one message of a person. */
function repliesTo(discord: FakeDiscord, message: DiscordMessage): DiscordMessage[] {
  return discord.messages.filter((m) => m.message_reference?.message_id === message.id);
}

let running: {
  discord?: FakeDiscord;
  model?: FakeOpenAI;
  ingress?: SwitchyardProcess;
  workers?: CrashWorkers;
} = {};
afterEach(async () => {
  const { discord, model, ingress, workers } = running;
  running = {};
  await ingress?.stop();
  await workers?.close();
  await discord?.close();
  await model?.close();
});

describe("two Discord bot accounts in one deployment", () => {
  it("answers each bot's mention through that bot, as its agent, once through a redelivery after the ingress restarts", async () => {
    const discord = await startFakeDiscord({
      users: { [HUMAN]: { username: "ada" } },
      guilds: [
        {
          id: FAKE_DISCORD.guildId,
          name: "Acme",
          channels: [
            { id: GENERAL, name: "general" },
            { id: HELP, name: "help" },
          ],
        },
      ],
      bots: [SUPPORT],
    });
    const main: FakeDiscordBot = discord.account(discord.token);
    const support: FakeDiscordBot = discord.account(SUPPORT.token);
    const openai = await startFakeOpenAI({ responder: echo as never });
    running = { discord, model: openai };

    const env = {
      SWITCHYARD_CONFIG: writeConfig(),
      DISCORD_TOKEN: discord.token,
      DISCORD_SUPPORT_TOKEN: SUPPORT.token,
      DISCORD_API_URL: discord.apiUrl,
    };
    const workers = await startCrashWorkers(openai, uniquePrefix("discord-accounts"), env, 1);
    running.workers = workers;
    const ingressEnv = { ...redisEnv(), ...workers.env };
    running.ingress = await startSwitchyardProcess("ingress", ingressEnv);
    await until(() => (main.identifies === 1 && support.identifies === 1 ? true : undefined));
    // Each bot registers the slash commands for its own application, with its own token.
    const registered = (bot: FakeDiscordBot) =>
      bot.waitForCall(
        "PUT",
        new RegExp(`^/applications/${bot.applicationId}/guilds/\\d+/commands$`),
        {
          timeoutMs: 30_000,
        },
      );
    expect((await registered(support)).status).toBe(200);
    expect((await registered(main)).status).toBe(200);

    // Both bots see both messages; each is meant for one of them.
    const toMain = discord.messageCreate({
      channelId: GENERAL,
      authorId: HUMAN,
      content: `<@${main.botUserId}> hello main`,
    });
    const toSupport = discord.messageCreate({
      channelId: HELP,
      authorId: HUMAN,
      content: `<@${SUPPORT.botUserId}> hello support`,
    });
    await until(() => repliesTo(discord, toMain)[0], 30_000);
    await until(() => repliesTo(discord, toSupport)[0], 30_000);
    const [mainAnswer] = repliesTo(discord, toMain);
    const [supportAnswer] = repliesTo(discord, toSupport);
    expect(mainAnswer).toMatchObject({ channel_id: GENERAL, content: "echo: hello main" });
    expect(mainAnswer?.author.id).toBe(main.botUserId);
    expect(supportAnswer).toMatchObject({ channel_id: HELP, content: "echo: hello support" });
    expect(supportAnswer?.author.id).toBe(SUPPORT.botUserId);
    // Each answer went out with its own bot's token: the main bot never posted in #help.
    const posts = (bot: FakeDiscordBot) =>
      bot.calls.filter((c) => c.method === "POST" && /\/messages$/.test(c.path));
    expect(posts(support).map((c) => [c.token, c.path])).toEqual([
      [SUPPORT.token, `/channels/${HELP}/messages`],
    ]);
    expect(posts(main).map((c) => [c.token, c.path])).toEqual([
      [discord.token, `/channels/${GENERAL}/messages`],
    ]);

    // The support bot answers as the agent its account names; the main bot as the default one.
    const systemOf = (said: string) =>
      openai.requests
        .filter((r) => JSON.stringify(r.body.messages).includes(said))
        .map((r) => String(r.body.messages[0]?.content));
    expect(systemOf("hello support")[0]).toMatch(/^You are the support desk of Acme\./);
    expect(systemOf("hello main")[0]).not.toContain("support desk");
    expect(openai.requests).toHaveLength(2);

    // The ingress dies (kill -9) and comes back with empty caches; Discord delivers
    // both messages again, as a replay after a lost session can.
    await running.ingress.stop("SIGKILL");
    running.ingress = await startSwitchyardProcess("ingress", ingressEnv);
    await until(() => (main.identifies === 2 && support.identifies === 2 ? true : undefined));
    support.redeliver(toSupport);
    main.redeliver(toMain);
    // The next message to each bot is answered after the redelivered one was taken (or not).
    const nextSupport = discord.messageCreate({
      channelId: HELP,
      authorId: HUMAN,
      content: `<@${SUPPORT.botUserId}> after the replay`,
    });
    const nextMain = discord.messageCreate({
      channelId: GENERAL,
      authorId: HUMAN,
      content: `<@${main.botUserId}> main after`,
    });
    await until(() => repliesTo(discord, nextSupport)[0], 30_000);
    await until(() => repliesTo(discord, nextMain)[0], 30_000);

    // One answer per message, each from its own bot.
    for (const [bot, messages] of [
      [support, [toSupport, nextSupport]],
      [main, [toMain, nextMain]],
    ] as const) {
      for (const message of messages) {
        expect(repliesTo(discord, message).map((m) => m.author.id)).toEqual([bot.botUserId]);
      }
      expect(bot.messages).toHaveLength(messages.length);
    }
    // Nor did the redelivered message join the next turn: each history holds it once.
    const userTurns = (last: string) =>
      openai.requests
        .map((r) =>
          (r.body.messages as { role: string; content: unknown }[]).filter(
            (m) => m.role === "user",
          ),
        )
        .filter((said) => said.at(-1)?.content === last)
        .map((said) => said.map((m) => m.content));
    expect(userTurns("after the replay")).toEqual([["hello support", "after the replay"]]);
    expect(userTurns("main after")).toEqual([["hello main", "main after"]]);
    expect(openai.requests).toHaveLength(4);
  }, 120_000);
});
