import { afterEach, describe, expect, it } from "vitest";
import { FEEDBACK_REPLIES } from "../../src/ingress/feedback-desk.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { FAKE_DISCORD, type FakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  callbackOf,
  type DiscordSetup,
  type DiscordSetupOptions,
  fixture,
  HUMAN,
  shown,
  startDiscordBot,
} from "../support/discord.ts";
import { settle } from "../support/slack-harness.ts";

const running: DiscordSetup[] = [];
afterEach(async () => {
  for (const setup of running.splice(0)) await setup.close();
});

async function start(options: DiscordSetupOptions = {}) {
  const setup = await startDiscordBot(options);
  running.push(setup);
  return setup;
}

const OTHER = "1000000000000000009";
const mention = (text: string) => `<@${FAKE_DISCORD.botUserId}> ${text}`;
let clicks = 0;

/** A button click as Discord sends it (the API docs' button interaction), on `message`, by `user`. */
function clickPayload(
  customId: string,
  message: unknown,
  user: string,
  replay?: { id: string; token: string },
) {
  clicks += 1;
  const { d } = fixture("interaction-docs-button");
  d.id = replay?.id ?? `14${String(Date.now()).slice(-13)}${String(clicks).padStart(4, "0")}`;
  d.token = replay?.token ?? `itoken-feedback-${clicks}-${Math.random().toString(36).slice(2)}`;
  d.application_id = FAKE_DISCORD.applicationId;
  d.guild_id = FAKE_DISCORD.guildId;
  d.channel_id = FAKE_DISCORD.channelId;
  d.channel = { id: FAKE_DISCORD.channelId, type: 0, guild_id: FAKE_DISCORD.guildId };
  d.member.user = { ...d.member.user, id: user, global_name: user === HUMAN ? "Ada" : null };
  d.member.permissions = "0";
  d.message = message;
  d.data = { ...d.data, custom_id: customId };
  return d as { id: string; token: string };
}

function click(discord: FakeDiscord, payload: { id: string; token: string }): string {
  discord.dispatch("INTERACTION_CREATE", payload);
  return payload.token;
}

const buttons = (message: unknown) =>
  (
    (message as { components?: { components: { custom_id: string; label: string }[] }[] })
      .components ?? []
  ).flatMap((row) => row.components);

async function feedbackCounts(metrics: Metrics) {
  const metric = await metrics.registry.getSingleMetric("switchyard_feedback_total")?.get();
  const of = (vote: string) => metric?.values.find((v) => v.labels.vote === vote)?.value ?? 0;
  return { up: of("up"), down: of("down") };
}

describe("feedback on Discord answers", () => {
  it("puts 👍 / 👎 buttons under the last message of an answer only, streamed or split", async () => {
    const { pipe, discord } = await start({ streamEditMs: 300 });
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: words, chunkDelayMs: 30 });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("stream"),
    });
    const streamed = await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId).find(
        (m) => m.content === words && buttons(m).length > 0,
      ),
    );
    expect(buttons(streamed).map((b) => b.label)).toEqual(["👍", "👎"]);
    expect(buttons(streamed)[0]?.custom_id).toMatch(/^fb:[a-z0-9]{12}:u$/);

    const long = Array.from(
      { length: 20 },
      (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(16)}`,
    );
    pipe.fake.script({ content: long.join("\n\n") });
    const asked = discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("long"),
    });
    const parts = await until(() => {
      const all = botPosts(discord, FAKE_DISCORD.channelId);
      const mine = all.slice(all.findIndex((m) => m.message_reference?.message_id === asked.id));
      return mine.some((m) => m.content.includes("Paragraph 19")) && buttons(mine.at(-1)).length
        ? mine
        : undefined;
    });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((m) => buttons(m).length > 0)).toEqual([
      ...parts.slice(1).map(() => false),
      true,
    ]);
  });

  it("records a click, replaces a changed vote, counts a replayed interaction once, and keeps what was wrong", async () => {
    const metrics = new Metrics();
    const { pipe, discord } = await start({
      pipeline: { observe: { feedback: (vote) => metrics.countFeedback(vote) } },
    });
    pipe.fake.script({ content: "The capital of Australia is Sydney." });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("capital?"),
    });
    const answer = await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId).find((m) => buttons(m).length > 0),
    );
    const [up, down] = buttons(answer).map((b) => b.custom_id) as [string, string];

    const first = clickPayload(up, answer, HUMAN);
    const token = click(discord, first);
    expect((await until(() => shown(discord, token)))?.content).toBe(FEEDBACK_REPLIES.up);
    expect(callbackOf(discord, token)).toMatchObject({ type: 5, data: { flags: 64 } });
    click(discord, clickPayload(up, answer, HUMAN, first));
    await settle(300);
    expect(await feedbackCounts(metrics)).toEqual({ up: 1, down: 0 });

    const changed = click(discord, clickPayload(down, answer, HUMAN));
    expect((await until(() => shown(discord, changed)))?.content).toBe(FEEDBACK_REPLIES.ask);
    const again = click(discord, clickPayload(down, answer, HUMAN));
    expect((await until(() => shown(discord, again)))?.content).toBe(FEEDBACK_REPLIES.same("down"));
    const other = click(discord, clickPayload(up, answer, OTHER));
    expect((await until(() => shown(discord, other)))?.content).toBe(FEEDBACK_REPLIES.up);
    expect(await feedbackCounts(metrics)).toEqual({ up: 2, down: 1 });

    const requests = pipe.fake.requests.length;
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("It is Canberra."),
    });
    await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId).find(
        (m) => m.content === FEEDBACK_REPLIES.reasonKept,
      ),
    );
    await settle(300);
    expect(pipe.fake.requests).toHaveLength(requests);
    const address = {
      platform: "discord",
      workspace: FAKE_DISCORD.guildId,
      channel: FAKE_DISCORD.channelId,
      conversation: FAKE_DISCORD.channelId,
    };
    const keys = await pipe.app.redis.keys(`${pipe.prefix}:*:feedback:*`);
    const turnId = keys.find((k) => !k.includes("feedback-"))?.split(":feedback:")[1] as string;
    const [rating] = await pipe.app.store.feedback.ratings(address, [turnId]);
    expect(rating?.votes.map((v) => [v.voter, v.vote, v.why])).toEqual([
      [`discord:${HUMAN}`, "down", "It is Canberra."],
      [`discord:${OTHER}`, "up", undefined],
    ]);
  });
});
