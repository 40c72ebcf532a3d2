import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_MEMORY, DEFAULT_REMINDERS } from "../../src/core/config/index.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { toolResult } from "../../src/core/tools/tool-result.ts";
import { schemeKeyKind } from "../../src/store/key-parse.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { memoryTools } from "../../src/tools/memory/index.ts";
import { reminderQueue, reminderTools } from "../../src/tools/reminders/index.ts";
import { ALICE, BOT, startTelegram, TEAM, type TelegramSetup } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  type DiscordSetup,
  HUMAN,
  interact,
  slash,
  startDiscordBot,
} from "../support/discord.ts";
import { startPipeline } from "../support/pipeline.ts";
import { keysUnder } from "../support/redis.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  startSlackHarness,
  visibleIn,
} from "../support/slack-harness.ts";

const THREAD = "1300000000000000002";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Every key a run left under its prefix, with the scheme's kind for each (undefined: built by hand). */
async function keysLeft(redis: Redis, prefix: string): Promise<Map<string, string | undefined>> {
  const keys = await keysUnder(redis, prefix);
  return new Map(keys.map((key) => [key, schemeKeyKind(prefix, key)]));
}

function outsideTheScheme(kinds: Map<string, string | undefined>): string[] {
  return [...kinds].filter(([, kind]) => kind === undefined).map(([key]) => key);
}

/**
 * The keys left once every kind in `expected` is there (a command's write lands after
 * its reply; a fixed 300 ms wait was not enough under load), or what is there after
 * `timeoutMs`, for the assertion to show.
 */
async function keysOnceThere(
  redis: Redis,
  prefix: string,
  expected: readonly string[],
  timeoutMs = 15_000,
): Promise<Map<string, string | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const kinds = await keysLeft(redis, prefix);
    const present = new Set(kinds.values());
    if (expected.every((kind) => present.has(kind)) || Date.now() > deadline) return kinds;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("every Redis key a channel's run leaves is a KeyScheme key", () => {
  it("Slack: a mention in a thread, a slash command", async () => {
    const h: SlackHarness = await startSlackHarness();
    close = () => h.close();
    const [url] = h.events as [string];
    h.pipe.fake.script({ content: "Hello." });
    const m = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> start` });
    await sendEvent(url, SLACK_SECRET, m);
    await until(() => (visibleIn(h.slack, m.ts as string).length === 1 ? true : undefined));
    await sendSlashCommand(url, SLACK_SECRET, { text: "off lookup", userId: "U0HUMAN" });
    const expected = ["conversation", "queue", "channel-state", "workspace"];
    const kinds = await keysOnceThere(h.pipe.app.redis, h.pipe.prefix, expected);
    expect(outsideTheScheme(kinds)).toEqual([]);
    expect([...kinds.values()]).toEqual(expect.arrayContaining(expected));
  });

  it("Discord: a mention, a message in a thread, a slash command", async () => {
    const setup: DiscordSetup = await startDiscordBot({
      fake: {
        guilds: [
          {
            id: FAKE_DISCORD.guildId,
            name: "Fake Guild",
            channels: [
              { id: FAKE_DISCORD.channelId, name: "general" },
              { id: THREAD, name: "a thread", type: 11, parentId: FAKE_DISCORD.channelId },
            ],
          },
        ],
        users: { [HUMAN]: { username: "ada" } },
      },
    });
    close = () => setup.close();
    const { pipe, discord } = setup;
    pipe.fake.script({ content: "Hello." }, { content: "Again." });
    discord.messageCreate({
      channelId: THREAD,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> hi`,
    });
    await until(() => (botPosts(discord, THREAD).length === 1 ? true : undefined));
    discord.messageCreate({ channelId: THREAD, authorId: HUMAN, content: "and now?" });
    await until(() => (botPosts(discord, THREAD).length === 2 ? true : undefined));
    interact(discord, { type: 2, data: slash("tools", "off", { tool: "lookup" }) });
    const expected = ["conversation", "queue", "channel-state", "thread", "commands"];
    const kinds = await keysOnceThere(pipe.app.redis, pipe.prefix, expected);
    expect(outsideTheScheme(kinds)).toEqual([]);
    expect([...kinds.values()]).toEqual(expect.arrayContaining(expected));
  });

  it("Telegram: a private message, a command in a group", async () => {
    const setup: TelegramSetup = await startTelegram();
    close = async () => {
      await setup.channel.stop();
      await setup.pipe.close();
      await setup.telegram.close();
    };
    const { telegram, pipe } = setup;
    pipe.fake.script({ content: "Hello." });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello there" });
    await until(() => (telegram.botMessages(ALICE.id).length ? true : undefined));
    telegram.userSends({ chat: TEAM, from: ALICE, text: `/tools@${BOT.username}` });
    await until(() => (telegram.botMessages(TEAM).length ? true : undefined));
    const expected = ["conversation", "queue", "channel-state", "sent"];
    const kinds = await keysOnceThere(pipe.app.redis, pipe.prefix, expected);
    expect(outsideTheScheme(kinds)).toEqual([]);
    expect([...kinds.values()]).toEqual(expect.arrayContaining(expected));
  });

  it("the memory and reminder tools: a note saved and a reminder set in a turn", async () => {
    const registry = new ToolRegistry();
    const pipe = await startPipeline({ registry, runtime: { mode: "full" } });
    const queue = reminderQueue(pipe.app.redis, pipe.prefix);
    close = async () => {
      await queue.close();
      await pipe.close();
    };
    const { redis } = pipe.app;
    for (const tool of memoryTools({ redis, prefix: pipe.prefix, limits: DEFAULT_MEMORY })) {
      registry.register(tool);
    }
    const reminders = { queue, redis, prefix: pipe.prefix, defaults: DEFAULT_REMINDERS };
    for (const tool of reminderTools(reminders)) registry.register(tool);
    pipe.fake.script(
      {
        toolCalls: [
          { id: "c1", name: "remember", arguments: { text: "Likes tea", topic: "drinks" } },
          { id: "c2", name: "set_reminder", arguments: { text: "stand up", in: "1h" } },
        ],
      },
      { content: "Noted, and I will remind you." },
    );
    await pipe.app.queue.enqueue(pipe.message("remember I like tea; remind me in an hour"));
    expect((await pipe.posts(1)).map((p) => p.text)).toEqual(["Noted, and I will remind you."]);
    const expected = ["conversation", "queue", "memory", "reminders"];
    const kinds = await keysOnceThere(redis, pipe.prefix, expected);
    expect(outsideTheScheme(kinds)).toEqual([]);
    expect([...kinds.values()]).toEqual(expect.arrayContaining(expected));
    // The note's keys and the reminder's (its id, the call's id, the person's index) are all there.
    const left = [...kinds.keys()].map((key) => key.slice(pipe.prefix.length + 1));
    expect(left).toEqual(
      expect.arrayContaining([
        "{mem:console:local:alice}:notes",
        "{mem:console:local:alice}:topics",
        "{mem:console:local:alice}:seq",
        "{mem:console:local:alice}:calls",
        "{reminders}:seq",
        expect.stringMatching(/^\{reminders\}:call:[0-9a-f]{40}$/),
        "{rem:console:local:alice}:pending",
      ]),
    );
  });

  it("a tool that returns a file: its bytes wait in the conversation's slot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sy-keys-files-"));
    const chart = defineTool({
      id: "chart",
      description: "Draws a chart.",
      parameters: z.object({}),
      execute: () => toolResult("Drawn.", [{ name: "c.csv", bytes: Buffer.from("a,b\n1,2\n") }]),
    });
    const pipe = await startPipeline({ tools: [chart], consoleFilesDir: dir });
    close = async () => {
      await pipe.close();
      rmSync(dir, { recursive: true, force: true });
    };
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "chart", arguments: {} }] },
      { content: "Here." },
    );
    await pipe.app.queue.enqueue(pipe.message("a chart"));
    expect((await pipe.posts(1)).map((p) => p.text)).toEqual(["Here."]);
    // The file's bytes were kept at the tool's step, before the answer was posted.
    const kinds = await keysOnceThere(pipe.app.redis, pipe.prefix, ["conversation"]);
    expect(outsideTheScheme(kinds)).toEqual([]);
    const left = [...kinds.keys()].map((key) => key.slice(pipe.prefix.length + 1));
    expect(left).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\{conv:[^}]+\}:tool-file:[0-9a-f]{20}$/)]),
    );
  });
});
