import { setTimeout as sleep } from "node:timers/promises";
import type { InlineKeyboardMarkup } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { sendBlockAction, sendSlashCommand } from "../../src/testing/fakes/slack-requests.ts";
import { DISCORD_PERSON, type DiscordChaos, discordChaos } from "../support/chaos-discord.ts";
import { CHAOS } from "../support/chaos-knobs.ts";
import { CLEAN_VERDICT, verdict } from "../support/chaos-ledger.ts";
import { hasTag } from "../support/chaos-model.ts";
import { ChaosScenario } from "../support/chaos-scenario.ts";
import { replayEvent, SLACK_SECRET, type SlackChaos, slackChaos } from "../support/chaos-slack.ts";
import { type TelegramChaos, telegramChaos } from "../support/chaos-telegram.ts";
import { REDIS_URL } from "../support/redis.ts";
import { freePort } from "../support/switchyard-process.ts";

/** Every event, command and press below is delivered this many times in all. */
const DELIVERIES = 4;
/** How long a late second answer gets to show up. */
const QUIET_MS = 3_000;
const MESSAGES = Math.min(CHAOS.messages, 8);

function commandLine(
  name: string,
  answers: Record<string, number>,
  delayMs = CHAOS.platformDelayMs,
): string {
  const parts = Object.entries(answers).map(([what, n]) => `${what} answered ${n}×`);
  const line = `chaos ${name}: each delivered ${DELIVERIES} times; ${parts.join(", ")} (platform delay ${delayMs} ms, seed ${CHAOS.seed})`;
  console.log(line);
  return line;
}

/** Finds the first button of a Block Kit message: its action id and value. */
function firstButton(blocks: unknown): { action_id: string; value: string } | undefined {
  if (Array.isArray(blocks)) {
    for (const block of blocks) {
      const found = firstButton(block);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof blocks !== "object" || blocks === null) return undefined;
  const element = blocks as Record<string, unknown>;
  if (element.type === "button" && typeof element.action_id === "string") {
    return { action_id: element.action_id, value: String(element.value ?? "") };
  }
  for (const value of Object.values(element)) {
    const found = firstButton(value);
    if (found) return found;
  }
  return undefined;
}

describe("Slack's retries and replays", () => {
  let slack: SlackChaos;
  let scenario: ChaosScenario;
  beforeAll(async () => {
    slack = await slackChaos(CHAOS.platformDelayMs, { replays: DELIVERIES - 1 });
    scenario = new ChaosScenario(slack, {
      name: "slack-replays",
      redisUrl: REDIS_URL,
      messages: MESSAGES,
      workers: 2,
      maxKills: 0,
    });
    await scenario.start();
  }, 120_000);
  afterAll(async () => {
    await scenario?.close();
    await slack?.close();
  });

  it("answers each message once though Slack delivers every event four times (and a mention twice more)", async () => {
    const { counts, line } = await scenario.run();
    expect(counts.sent).toBe(MESSAGES);
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
  }, 120_000);

  it("answers a typed command, a slash command and a button press once each, delivered four times", async () => {
    const address = slack.address(0);
    if (!address) throw new Error("the first test opens conversation 0");
    const [channel, thread] = address.conversation.split(":") as [string, string];
    const untagged = () => slack.shown(0).filter((text) => !hasTag(text)).length;

    // `!tools` typed in the thread: Slack redelivers it with X-Slack-Retry-Num 1..3.
    const before = untagged();
    await replayEvent(
      slack.eventsUrl,
      {
        type: "message",
        user: "U0HUMAN",
        text: "!tools",
        ts: `${thread.split(".")[0]}.900001`,
        thread_ts: thread,
        channel,
        channel_type: "channel",
        team: address.workspace,
        event_ts: `${thread.split(".")[0]}.900001`,
      },
      DELIVERIES - 1,
    );
    await sleep(QUIET_MS);
    const typed = untagged() - before;

    // `/tools` as a slash command, the same trigger delivered four times: each ack with a body is a reply.
    const slashUrl = slack.fake.responseUrl({ channel });
    const triggerId = `${Date.now()}.1.chaos-slash`;
    const acks = await Promise.all(
      Array.from({ length: DELIVERIES }, () =>
        sendSlashCommand(slack.eventsUrl, SLACK_SECRET, {
          channelId: channel,
          responseUrl: slashUrl,
          triggerId,
        }),
      ),
    );
    await sleep(QUIET_MS);
    const shownAcks = acks.filter((a) => a.body && (a.body.text || a.body.blocks));
    const slash = shownAcks.length + slack.fake.responses.filter((r) => r.url === slashUrl).length;

    // A button of that list, the same click delivered four times.
    const button = firstButton(shownAcks[0]?.body?.blocks);
    let pressed = -1;
    if (button) {
      const pressUrl = slack.fake.responseUrl({ channel, messageTs: "1700000000.999999" });
      const click = {
        actionId: button.action_id,
        value: button.value,
        channelId: channel,
        messageTs: "1700000000.999999",
        responseUrl: pressUrl,
        triggerId: `${Date.now()}.2.chaos-press`,
        actionTs: `${(Date.now() / 1000).toFixed(6)}`,
      };
      await Promise.all(
        Array.from({ length: DELIVERIES }, () =>
          sendBlockAction(slack.eventsUrl, SLACK_SECRET, click),
        ),
      );
      await sleep(QUIET_MS);
      pressed = slack.fake.responses.filter((r) => r.url === pressUrl).length;
    }
    const line = commandLine("slack-command-replays", {
      "!tools in a thread": typed,
      "/tools": slash,
      "a button press": pressed,
    });
    expect({ typed, slash, pressed }, line).toEqual({ typed: 1, slash: 1, pressed: 1 });
  }, 60_000);
});

describe("Telegram's webhook retries and replayed updates", () => {
  let telegram: TelegramChaos;
  let scenario: ChaosScenario;
  const secret = "chaos-webhook-secret";
  beforeAll(async () => {
    telegram = await telegramChaos(CHAOS.platformDelayMs, {
      webhook: { port: await freePort(), secret },
      replays: DELIVERIES - 1,
    });
    scenario = new ChaosScenario(telegram, {
      name: "telegram-replays",
      redisUrl: REDIS_URL,
      messages: MESSAGES,
      workers: 2,
      maxKills: 0,
    });
    await scenario.start();
  }, 120_000);
  afterAll(async () => {
    await scenario?.close();
    await telegram?.close();
  });

  it("answers each message once though every update is posted to the webhook four times", async () => {
    const { counts, line } = await scenario.run();
    expect(counts.sent).toBe(MESSAGES);
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
  }, 120_000);

  it("answers /tools and a button press once each, their updates posted four times", async () => {
    const fake = telegram.fake;
    const from = telegram.person(0);
    const botUntagged = () => fake.botMessages(from.id).filter((m) => !hasTag(m.text ?? ""));
    const replay = (update: Parameters<typeof fake.postToWebhook>[0]) =>
      Promise.all(Array.from({ length: DELIVERIES - 1 }, () => fake.postToWebhook(update, secret)));

    const before = botUntagged().length;
    await replay(fake.userSends({ chat: from.id, from, text: "/tools" }));
    await sleep(QUIET_MS);
    const listed = botUntagged();
    const command = listed.length - before;

    const list = listed.find(
      (m) => (m.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard,
    );
    // A switch (Turn off …): its press changes a tool and edits the list, so a replay would show.
    const data = (list?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard
      .flat()
      .find((b) => /^Turn (on|off)/.test(b.text)) as { callback_data?: string } | undefined;
    let edits = -1;
    let posts = -1;
    let toasts = -1;
    if (list && data?.callback_data) {
      const callsBefore = fake.calls.length;
      const untaggedBefore = botUntagged().length;
      const press = fake.pressButton({ from, message: list, data: data.callback_data });
      await replay(press);
      await sleep(QUIET_MS);
      edits = fake.calls
        .slice(callsBefore)
        .filter(
          (c) =>
            c.method === "editMessageText" &&
            c.status === 200 &&
            Number(c.params.message_id) === list.message_id,
        ).length;
      posts = botUntagged().length - untaggedBefore;
      // Every answer the bot tried to give the press, refused or not (Telegram takes one).
      toasts = fake
        .callsTo("answerCallbackQuery")
        .filter((c) => String(c.params.callback_query_id) === press.callback_query?.id).length;
    }
    const line = commandLine("telegram-command-replays", {
      "/tools": command,
      "a button press (edits)": edits,
      "a button press (new messages)": posts,
      "a button press (answerCallbackQuery)": toasts,
    });
    expect({ command, edits, posts, toasts }, line).toEqual({
      command: 1,
      edits: 1,
      posts: 0,
      toasts: 1,
    });
  }, 60_000);
});

describe("Discord's gateway replays", () => {
  let discord: DiscordChaos;
  let scenario: ChaosScenario;
  beforeAll(async () => {
    discord = await discordChaos({ replays: DELIVERIES - 1 });
    scenario = new ChaosScenario(discord, {
      name: "discord-replays",
      redisUrl: REDIS_URL,
      messages: MESSAGES,
      workers: 2,
      maxKills: 0,
    });
    await scenario.start();
  }, 120_000);
  afterAll(async () => {
    await scenario?.close();
    await discord?.close();
  });

  it("answers each message once though every MESSAGE_CREATE is dispatched four times", async () => {
    const { counts, line } = await scenario.run();
    expect(counts.sent).toBe(MESSAGES);
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
  }, 120_000);

  it("answers a typed !tools mention once though its MESSAGE_CREATE is dispatched four times", async () => {
    const channel = scenario.platform.address(0)?.channel;
    if (!channel) throw new Error("the first test opens conversation 0");
    const untagged = () => discord.shown(0).filter((text) => !hasTag(text)).length;
    const before = untagged();
    const typed = discord.fake.messageCreate({
      channelId: channel,
      authorId: DISCORD_PERSON,
      content: `<@${FAKE_DISCORD.botUserId}> !tools`,
    });
    for (let i = 1; i < DELIVERIES; i++) {
      discord.fake.messageCreate({
        channelId: channel,
        authorId: DISCORD_PERSON,
        content: `<@${FAKE_DISCORD.botUserId}> !tools`,
        id: typed.id,
      });
    }
    await sleep(QUIET_MS);
    const answers = untagged() - before;
    const line = commandLine("discord-command-replays", { "!tools": answers }, 0);
    expect(answers, line).toBe(1);
  }, 60_000);
});
