import { once } from "node:events";
import { Events } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { INBOUND_TEXT_LIMIT, tooLongReply } from "../../src/core/conversation.ts";
import { DiscordChannel } from "../../src/platforms/discord/channel.ts";
import { DEFAULT_DISCORD, type DiscordConfig } from "../../src/platforms/discord/config-section.ts";
import { FAKE_DISCORD, startFakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";

const DM_CHANNEL = "1300000000000000099";
const THREAD = "1300000000000000002";
const OTHER_BOT = "1000000000000000003";

let setup: DiscordSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(options: Parameters<typeof startDiscordBot>[0] = {}) {
  setup = await startDiscordBot(options);
  return setup;
}

const mention = (text: string) => `<@${FAKE_DISCORD.botUserId}> ${text}`;

describe("the Discord channel on a real discord.js client", () => {
  it("answers a mention once, as a reply to it, and ignores channel chatter not meant for it", async () => {
    const { pipe, discord } = await start();
    pipe.fake.script({ content: "Hello from Switchyard." }, { content: "second answer" });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: "just talking",
    });
    const asked = discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("hi there"),
    });
    const [reply] = await until(() => {
      const posts = botPosts(discord, FAKE_DISCORD.channelId);
      return posts.length ? posts : undefined;
    });
    expect(reply?.content).toBe("Hello from Switchyard.");
    expect(reply?.message_reference?.message_id).toBe(asked.id);
    // The chatter came first; had it been taken, the next mention would be answered third.
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("again"),
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length >= 2 ? true : undefined));
    expect(botPosts(discord, FAKE_DISCORD.channelId).map((m) => m.content)).toEqual([
      "Hello from Switchyard.",
      "second answer",
    ]);
    expect(pipe.fake.requests.map((r) => r.body.messages.at(-1).content)).toEqual([
      "hi there",
      "again",
    ]);
  });

  it("waits out a 429 on posting and lands the answer once", async () => {
    const { pipe, discord } = await start();
    pipe.fake.script({ content: "After the rate limit." });
    const path = new RegExp(`^/channels/${FAKE_DISCORD.channelId}/messages$`);
    discord.rateLimit("POST", path, 0.3);
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("are you there?"),
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length ? true : undefined));
    const posts = discord.calls.filter((c) => c.method === "POST" && path.test(c.path));
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(250);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(botPosts(discord, FAKE_DISCORD.channelId).map((m) => m.content)).toEqual([
      "After the rate limit.",
    ]);
  });

  it("answers direct messages, and !tools typed in one", async () => {
    const { pipe, discord } = await start();
    pipe.fake.script({ content: "a private answer" });
    discord.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: "hello in private" });
    await until(() => (botPosts(discord, DM_CHANNEL).length ? true : undefined));
    discord.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: "!tools" });
    const list = await until(() =>
      botPosts(discord, DM_CHANNEL).find((m) => m.content.includes("tools available")),
    );
    expect(list.content).toMatch(/^2 of 2 tools available/);
    expect(botPosts(discord, DM_CHANNEL)[0]?.content).toBe("a private answer");
  });

  it("splits a long answer at 2,000 characters, every part a reply", async () => {
    const { pipe, discord } = await start();
    const paragraphs = Array.from(
      { length: 20 },
      (_, i) => `Paragraph ${i}: ${"word ".repeat(50)}`,
    );
    pipe.fake.script({ content: paragraphs.join("\n\n") });
    const asked = discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("long please"),
    });
    const posts = await until(() => {
      const all = botPosts(discord, FAKE_DISCORD.channelId);
      return all.some((m) => m.content.includes("Paragraph 19")) ? all : undefined;
    });
    expect(posts.length).toBeGreaterThan(2);
    for (const post of posts) {
      expect(post.content.length).toBeLessThanOrEqual(2_000);
      expect(post.message_reference?.message_id).toBe(asked.id);
    }
    const joined = posts.map((p) => p.content).join("\n\n");
    for (const p of paragraphs) expect(joined).toContain(p.trim());
  });
});

describe("a message Discord delivers twice", () => {
  it("is answered once when the gateway replays it after a RESUME, even with discord.js keeping no message cache", async () => {
    const { pipe, discord, channel } = await start();
    pipe.fake.script({ content: "answered once" });
    const asked = discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("only once please"),
    });
    const command = discord.messageCreate({
      channelId: DM_CHANNEL,
      authorId: HUMAN,
      content: "!tools",
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length ? true : undefined));
    await until(() => (botPosts(discord, DM_CHANNEL).length ? true : undefined));

    const resumed = once(channel.client, Events.ShardResume);
    discord.reconnect();
    await resumed;
    expect(discord.resumes).toBe(1);
    // What Discord replays after a RESUME: the same events, the same message ids.
    discord.dispatch("MESSAGE_CREATE", asked);
    discord.dispatch("MESSAGE_CREATE", command);
    // Handled after the replays, in order: once these are answered, the replays were handled too.
    pipe.fake.script({ content: "the next answer" });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("and now?"),
    });
    discord.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: "!skills" });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length >= 2 ? true : undefined));
    await until(() => (botPosts(discord, DM_CHANNEL).length >= 2 ? true : undefined));

    expect(botPosts(discord, FAKE_DISCORD.channelId).map((m) => m.content)).toEqual([
      "answered once",
      "the next answer",
    ]);
    expect(
      botPosts(discord, DM_CHANNEL).filter((m) => m.content.includes("tools available")),
    ).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(2);
  });
});

describe("a message over the inbound limit", () => {
  it("is answered once with how long it was, never queued, also when replayed", async () => {
    const { pipe, discord } = await start();
    pipe.fake.script({ content: "a normal answer" });
    const text = "x".repeat(INBOUND_TEXT_LIMIT + 1);
    const long = discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention(text),
    });
    discord.dispatch("MESSAGE_CREATE", long);
    // Handled after both: once it is answered, the long one and its replay were handled too.
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("short"),
    });
    await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId).some((m) => m.content === "a normal answer")
        ? true
        : undefined,
    );
    const replies = botPosts(discord, FAKE_DISCORD.channelId).filter(
      (m) => m.message_reference?.message_id === long.id,
    );
    expect(replies.map((m) => m.content)).toEqual([tooLongReply(text.length)]);
    expect(pipe.fake.requests.map((r) => r.body.messages.at(-1).content)).toEqual(["short"]);
  });
});

describe("a streamed answer on Discord", () => {
  it("grows in one message by edits and ends as the full answer", async () => {
    const { pipe, discord } = await start({ streamEditMs: 50 });
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: answer, chunkDelayMs: 10 });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("stream it"),
    });
    await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId)[0]?.content === answer ? true : undefined,
    );
    const [message] = botPosts(discord, FAKE_DISCORD.channelId);
    expect(botPosts(discord, FAKE_DISCORD.channelId)).toHaveLength(1);
    const first = discord.calls.find(
      (c) => c.method === "POST" && c.path === `/channels/${FAKE_DISCORD.channelId}/messages`,
    );
    expect(answer.startsWith(first?.body.content)).toBe(true);
    expect(first?.body.content).not.toBe(answer);
    const edits = discord.calls.filter(
      (c) =>
        c.method === "PATCH" &&
        c.path === `/channels/${FAKE_DISCORD.channelId}/messages/${message?.id}`,
    );
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.at(-1)?.body.content).toBe(answer);
  });

  it("still splits a long answer: the streamed message becomes the first part, the rest follow once", async () => {
    const { pipe, discord } = await start({ streamEditMs: 50 });
    const paragraphs = Array.from(
      { length: 20 },
      (_, i) => `Paragraph ${i}: ${"word ".repeat(50)}`,
    );
    pipe.fake.script({ content: paragraphs.join("\n\n"), chunkDelayMs: 1 });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("long and streamed"),
    });
    const posts = await until(() => {
      const all = botPosts(discord, FAKE_DISCORD.channelId);
      return all.some((m) => m.content.includes("Paragraph 19")) ? all : undefined;
    });
    expect(posts.length).toBeGreaterThan(2);
    const edited = discord.calls.filter(
      (c) => c.method === "PATCH" && c.path.endsWith(`/messages/${posts[0]?.id}`),
    );
    expect(edited.length).toBeGreaterThan(0);
    for (const post of posts) {
      expect(post.content.length).toBeLessThanOrEqual(2_000);
      expect(post.content.endsWith("…")).toBe(false);
    }
    // Every paragraph exactly once: no half-streamed copy is left behind.
    for (const p of paragraphs) {
      expect(posts.filter((post) => post.content.includes(p.trim()))).toHaveLength(1);
    }
  });
});

describe("the typing indicator on Discord", () => {
  it("is sent again during a long turn, before Discord's 10 s indicator would run out", async () => {
    const { pipe, discord } = await start();
    pipe.fake.script({ content: "that took a while", delayMs: 4_500 });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("think hard"),
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length ? true : undefined));
    const answeredAt = discord.calls.findIndex(
      (c) => c.method === "POST" && c.path === `/channels/${FAKE_DISCORD.channelId}/messages`,
    );
    const typing = discord.calls
      .slice(0, answeredAt)
      .filter(
        (c) => c.method === "POST" && c.path === `/channels/${FAKE_DISCORD.channelId}/typing`,
      );
    expect(typing.length).toBeGreaterThanOrEqual(2);
  });
});

describe("the discord: config section, read live", () => {
  const guilds = [
    {
      id: FAKE_DISCORD.guildId,
      name: "Fake Guild",
      channels: [
        { id: FAKE_DISCORD.channelId, name: "general" },
        { id: THREAD, name: "a thread", type: 11, parentId: FAKE_DISCORD.channelId },
      ],
    },
  ];

  it("makes a thread part of its channel's conversation for a channel set to conversation: channel", async () => {
    let settings: DiscordConfig = DEFAULT_DISCORD;
    const { pipe, discord } = await start({
      fake: { guilds, users: { [HUMAN]: { username: "ada" } } },
      channel: { settings: () => settings },
    });
    pipe.fake.script({ content: "one" }, { content: "two" }, { content: "three" });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("the secret is 42"),
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length ? true : undefined));

    // Default: the thread is a conversation of its own and knows nothing of the channel's.
    discord.messageCreate({ channelId: THREAD, authorId: HUMAN, content: "what is the secret?" });
    await until(() => (botPosts(discord, THREAD).length ? true : undefined));
    const seen = (n: number) =>
      pipe.fake.requests[n]?.body.messages.map((m: { content: string }) => m.content).join("\n");
    expect(seen(1)).not.toContain("the secret is 42");

    settings = {
      ...DEFAULT_DISCORD,
      channels: { [FAKE_DISCORD.channelId]: { conversation: "channel" } },
    };
    discord.messageCreate({ channelId: THREAD, authorId: HUMAN, content: "and now?" });
    await until(() => (botPosts(discord, THREAD).length >= 2 ? true : undefined));
    expect(seen(2)).toContain("the secret is 42");
    // The answer still goes to the thread it was asked in.
    expect(botPosts(discord, THREAD).map((m) => m.content)).toEqual(["two", "three"]);
  });

  it("answers other bots only with answer_bots, and never itself", async () => {
    let settings: DiscordConfig = DEFAULT_DISCORD;
    const { pipe, discord } = await start({
      fake: {
        users: { [HUMAN]: { username: "ada" }, [OTHER_BOT]: { username: "helper", bot: true } },
      },
      channel: { settings: () => settings },
    });
    pipe.fake.script({ content: "hello, person" }, { content: "hello, bot" });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: OTHER_BOT,
      content: mention("ignored: answer_bots is off"),
    });
    // Handled after the bot's message: once it is answered, the bot's was handled too.
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("from a person"),
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length ? true : undefined));
    settings = { ...DEFAULT_DISCORD, answerBots: true };
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: OTHER_BOT,
      content: mention("from a bot"),
    });
    await until(() => (botPosts(discord, FAKE_DISCORD.channelId).length >= 2 ? true : undefined));
    expect(pipe.fake.requests.map((r) => r.body.messages.at(-1).content)).toEqual([
      "from a person",
      "from a bot",
    ]);
    // Its own messages never: the two answers above did not start a third turn.
    expect(pipe.fake.requests).toHaveLength(2);
  });
});

describe("a worker process's Discord outbound", () => {
  it("posts, edits and types through REST alone, without a gateway session", async () => {
    const discord = await startFakeDiscord({});
    const channel = new DiscordChannel({ token: discord.token, apiUrl: discord.apiUrl });
    channel.useRestOnly();
    try {
      const target = {
        platform: "discord",
        workspace: FAKE_DISCORD.guildId,
        channel: FAKE_DISCORD.channelId,
        conversation: FAKE_DISCORD.channelId,
      };
      const ref = await channel.outbound.post(target, "from a worker", {
        idempotencyKey: "turn-1-0",
      });
      await channel.outbound.edit(target, ref, "from a worker, edited");
      await channel.outbound.typing(target);
      expect(discord.messages.map((m) => m.content)).toEqual(["from a worker, edited"]);
      expect(discord.calls.some((c) => c.path === "/gateway/bot")).toBe(false);
      expect(
        discord.calls.find((c) => c.method === "POST" && c.path.endsWith("/messages"))?.body,
      ).toMatchObject({ enforce_nonce: true });
    } finally {
      await channel.stop();
      await discord.close();
    }
  });
});
