import { afterEach, describe, expect, it } from "vitest";
import { DiscordChannel } from "../../src/channels/discord/channel.ts";
import { FAKE_DISCORD, type FakeDiscord, startFakeDiscord } from "../fakes/discord-api.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { bigTool, lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";

const HUMAN = "1000000000000000002";
const DM_CHANNEL = "1300000000000000099";
const tools = [lookupTool, bigTool];

let setup: { pipe: Pipeline; discord: FakeDiscord; channel: DiscordChannel } | undefined;
afterEach(async () => {
  await setup?.channel.stop();
  await setup?.pipe.close();
  await setup?.discord.close();
  setup = undefined;
});

const warnings: string[] = [];

async function start() {
  const discord = await startFakeDiscord({ users: { [HUMAN]: { username: "ada" } } });
  const channel = new DiscordChannel({ token: discord.token, apiUrl: discord.apiUrl });
  const pipe = await startPipeline({
    tools,
    outbounds: { discord: channel.outbound },
    streamEditMs: 0,
  });
  await pipe.app.worker?.worker.waitUntilReady();
  setup = { pipe, discord, channel };
  await channel.start(
    channelRuntime(pipe, tools, {
      logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) },
    }),
  );
  return setup;
}

const botPosts = (discord: FakeDiscord, channelId: string) =>
  discord.messages.filter(
    (m) => m.channel_id === channelId && m.author.id === FAKE_DISCORD.botUserId,
  );

describe("the Discord channel on a real discord.js client", () => {
  it("answers a mention once, as a reply to it, and ignores channel chatter not meant for it", async () => {
    const { pipe, discord } = await start();
    pipe.fake.script({ content: "Hello from Switchyard." });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: "just talking",
    });
    const mention = discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> hi there`,
    });
    const [reply] = await until(() => {
      const posts = botPosts(discord, FAKE_DISCORD.channelId);
      return posts.length ? posts : undefined;
    });
    expect(reply?.content).toBe("Hello from Switchyard.");
    expect(
      (reply as { message_reference?: { message_id: string } }).message_reference?.message_id,
    ).toBe(mention.id);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(botPosts(discord, FAKE_DISCORD.channelId)).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(1);
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toBe("hi there");
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
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> long please`,
    });
    const posts = await until(() => {
      const all = botPosts(discord, FAKE_DISCORD.channelId);
      return all.some((m) => m.content.includes("Paragraph 19")) ? all : undefined;
    });
    expect(posts.length).toBeGreaterThan(2);
    for (const post of posts) expect(post.content.length).toBeLessThanOrEqual(2_000);
    const joined = posts.map((p) => p.content).join("\n\n");
    for (const p of paragraphs) expect(joined).toContain(p.trim());
  });
});

describe("Discord application commands", () => {
  /** An APPLICATION_COMMAND interaction as Discord sends it, from a member with the given permissions. */
  function slash(
    discord: FakeDiscord,
    sub: string,
    options: Record<string, string>,
    permissions: string,
  ) {
    const token = `itoken-${Math.random().toString(36).slice(2)}`;
    discord.dispatch("INTERACTION_CREATE", {
      id: `14${Date.now()}`.slice(0, 19),
      application_id: FAKE_DISCORD.applicationId,
      type: 2,
      token,
      version: 1,
      guild_id: FAKE_DISCORD.guildId,
      channel_id: FAKE_DISCORD.channelId,
      channel: { id: FAKE_DISCORD.channelId, type: 0, guild_id: FAKE_DISCORD.guildId },
      member: {
        user: { id: HUMAN, username: "ada", discriminator: "0", global_name: "Ada", avatar: null },
        roles: [],
        permissions,
        joined_at: new Date().toISOString(),
        deaf: false,
        mute: false,
        flags: 0,
      },
      app_permissions: "2248473465835073",
      locale: "en-US",
      guild_locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: { "0": FAKE_DISCORD.guildId },
      context: 0,
      data: {
        id: "1500000000000000001",
        name: "tools",
        type: 1,
        options: [
          {
            type: 1,
            name: sub,
            options: Object.entries(options).map(([name, value]) => ({ type: 3, name, value })),
          },
        ],
      },
    });
    return token;
  }

  const replyTo = (discord: FakeDiscord, token: string) =>
    discord.calls.find(
      (c) =>
        c.method === "PATCH" &&
        c.status === 200 &&
        c.path.includes(`/webhooks/${FAKE_DISCORD.applicationId}/${token}/`),
    )?.body?.content as string | undefined;

  it("registers /tools and /skills in the guild, refuses the channel scope without Manage Server, and applies it with", async () => {
    const { pipe, discord } = await start();
    const registered = discord.calls.find(
      (c) => c.method === "PUT" && c.path.endsWith(`/guilds/${FAKE_DISCORD.guildId}/commands`),
    );
    expect(((registered?.body ?? []) as { name: string }[]).map((c) => c.name)).toEqual([
      "tools",
      "skills",
    ]);

    const refused = slash(discord, "off", { tool: "lookup", scope: "channel" }, "0");
    expect(await until(() => replyTo(discord, refused))).toMatch(
      /Only workspace admins or the bot's configured admins/,
    );
    const allowed = slash(discord, "off", { tool: "lookup", scope: "channel" }, String(1 << 5));
    expect(await until(() => replyTo(discord, allowed))).toContain(
      "lookup is now off in this channel",
    );

    pipe.fake.script({ content: "ok" });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> go`,
    });
    await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId).some((m) => m.content === "ok") ? true : undefined,
    );
    const names = (pipe.fake.requests[0]?.body.tools ?? []).map(
      (t: { function: { name: string } }) => t.function.name,
    );
    expect(names).not.toContain("lookup");
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
      ).toMatchObject({
        enforce_nonce: true,
      });
    } finally {
      await channel.stop();
      await discord.close();
    }
  });
});

describe("the Discord /tools message's components", () => {
  function interaction(discord: FakeDiscord, type: 2 | 3, data: Record<string, unknown>) {
    const token = `itoken-${Math.random().toString(36).slice(2)}`;
    discord.dispatch("INTERACTION_CREATE", {
      id: `14${Date.now()}${Math.floor(Math.random() * 100)}`.slice(0, 19),
      application_id: FAKE_DISCORD.applicationId,
      type,
      token,
      version: 1,
      guild_id: FAKE_DISCORD.guildId,
      channel_id: FAKE_DISCORD.channelId,
      channel: { id: FAKE_DISCORD.channelId, type: 0, guild_id: FAKE_DISCORD.guildId },
      member: {
        user: { id: HUMAN, username: "ada", discriminator: "0", global_name: "Ada", avatar: null },
        roles: [],
        permissions: "0",
        joined_at: new Date().toISOString(),
        deaf: false,
        mute: false,
        flags: 0,
      },
      app_permissions: "0",
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: { "0": FAKE_DISCORD.guildId },
      context: 0,
      ...(type === 3
        ? {
            message: {
              id: "1600000000000000001",
              channel_id: FAKE_DISCORD.channelId,
              author: {
                id: FAKE_DISCORD.botUserId,
                username: "switchyard",
                discriminator: "0",
                bot: true,
                avatar: null,
              },
              content: "list",
              timestamp: new Date().toISOString(),
              edited_timestamp: null,
              tts: false,
              mention_everyone: false,
              mentions: [],
              mention_roles: [],
              attachments: [],
              embeds: [],
              pinned: false,
              type: 0,
              flags: 64,
              components: [],
            },
          }
        : {}),
      data,
    });
    return token;
  }
  const edited = (discord: FakeDiscord, token: string) =>
    discord.calls.find(
      (c) => c.method === "PATCH" && c.status === 200 && c.path.includes(`/${token}/messages/`),
    )?.body as
      | {
          content: string;
          components?: { components: { custom_id: string; options?: { value: string }[] }[] }[];
        }
      | undefined;

  it("lists tools with a select; picking one shows why with on/off buttons; a click switches it in place", async () => {
    const { discord, pipe } = await start();
    const listed = interaction(discord, 2, {
      id: "1500000000000000001",
      name: "tools",
      type: 1,
      options: [{ type: 1, name: "list", options: [] }],
    });
    const list = await until(() => edited(discord, listed)).catch((error) => {
      throw new Error(
        `${error.message}; warnings: ${warnings.join(" | ")}; calls: ${JSON.stringify(discord.calls.filter((c) => c.status === 401).map((c) => [c.method, c.path]))}`,
      );
    });
    expect(list.content).toMatch(/^2 of 2 tools available/);
    const select = list.components?.[0]?.components[0];
    expect(select?.custom_id).toBe("tools:pick|conversation");
    expect(select?.options?.map((o) => o.value)).toEqual(["lookup", "calendar_create"]);

    const picked = interaction(discord, 3, {
      custom_id: "tools:pick|conversation",
      component_type: 3,
      values: ["lookup"],
    });
    const why = await until(() => edited(discord, picked));
    expect(why.content).toMatch(/^lookup: on/);
    const buttons = why.components?.[1]?.components.map((c) => c.custom_id);
    expect(buttons).toEqual(["tools:on|lookup|conversation", "tools:off|lookup|conversation"]);

    const clicked = interaction(discord, 3, {
      custom_id: "tools:off|lookup|conversation",
      component_type: 2,
    });
    const after = await until(() => edited(discord, clicked));
    expect(after.content).toContain("lookup is now off in this conversation");
    const { intent } = await pipe.app.store.intent.read({
      platform: "discord",
      workspace: FAKE_DISCORD.guildId,
      channel: FAKE_DISCORD.channelId,
      conversation: FAKE_DISCORD.channelId,
    });
    expect(intent.decisions).toEqual({ lookup: false });
  });
});
