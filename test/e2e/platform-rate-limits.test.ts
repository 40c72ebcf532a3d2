import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SLACK } from "../../src/platforms/slack/config-section.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { DISCORD_ROUTE_LIMITS } from "../../src/testing/fakes/discord-limits.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { SLACK_RATE_LIMITS } from "../../src/testing/fakes/slack-limits.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";
import { SLACK_SECRET, settle, useSlackHarness, visibleIn } from "../support/slack-harness.ts";

/** An answer long enough to stream by many edits. */
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");

let discordSetup: DiscordSetup | undefined;
afterEach(async () => {
  await discordSetup?.close();
  discordSetup = undefined;
});

describe("answers streamed against the platforms' rate limits", () => {
  it("Discord: edits past a channel's bucket wait out every 429, and the answer lands whole, once", async () => {
    discordSetup = await startDiscordBot({
      fake: { routeLimits: DISCORD_ROUTE_LIMITS },
      streamEditMs: 50,
    });
    const { pipe, discord } = discordSetup;
    pipe.fake.script({ content: ANSWER, chunkDelayMs: 15 });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> stream it`,
    });
    await until(
      () => (botPosts(discord, FAKE_DISCORD.channelId)[0]?.content === ANSWER ? true : undefined),
      20_000,
    );
    await settle(300);
    expect(botPosts(discord, FAKE_DISCORD.channelId).map((m) => m.content)).toEqual([ANSWER]);
    const limiter = discord.routeLimiter;
    // The stream edits faster than 5 per 5 s: the bucket ran dry, and discord.js waited each time.
    expect(
      discord.calls.filter((c) => c.status === 429).length +
        discord.calls.filter((c) => c.method === "PATCH").length,
    ).toBeGreaterThan(DISCORD_ROUTE_LIMITS.perRoute);
    expect(limiter?.buckets.early).toEqual([]);
  }, 30_000);
});

describe("a Slack answer edited against chat.update's tier", () => {
  const harness = useSlackHarness();

  it("lands whole, once, with every Retry-After honoured", async () => {
    const { pipe, slack, events } = await harness({
      tools: [],
      settings: () => ({ ...DEFAULT_SLACK, streaming: "edit" }),
      pipeline: { streamEditMs: 50 },
      // chat.update at Tier 2, twenty a minute: an edit every 50 ms runs past it within a second.
      rateLimits: { ...SLACK_RATE_LIMITS, tiers: { "chat.update": 2 } },
    });
    pipe.fake.script({ content: ANSWER, chunkDelayMs: 25 });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> stream it` });
    const ts = mention.ts as string;
    await sendEvent(events[0] as string, SLACK_SECRET, mention, { eventId: "EvLimits" });
    await until(() => (visibleIn(slack, ts).at(-1) === ANSWER ? true : undefined), 90_000);
    await settle(300);
    expect(visibleIn(slack, ts)).toEqual([ANSWER]);
    expect(slack.calls.some((c) => c.status === 429)).toBe(true);
    expect(slack.rateLimiter?.buckets.early).toEqual([]);
  }, 120_000);
});
