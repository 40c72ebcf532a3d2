import { once } from "node:events";
import { Client, Events, GatewayIntentBits, type Message, Partials } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";

const HUMAN = "1000000000000000002";
const DM_CHANNEL = "1300000000000000099";

/** Resolves with the next message the client receives that passes `where`. */
function nextMessage(client: Client, where: (m: Message) => boolean = () => true) {
  return new Promise<Message>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(Events.MessageCreate, listener);
      reject(new Error("discord.js emitted no matching messageCreate within 3 s"));
    }, 3_000);
    const listener = (message: Message) => {
      if (!where(message)) return;
      clearTimeout(timer);
      client.off(Events.MessageCreate, listener);
      resolve(message);
    };
    client.on(Events.MessageCreate, listener);
  });
}

describe("the fake Discord with a real discord.js Client", () => {
  let fake: FakeDiscord;
  let client: Client;
  let loginMs = 0;

  beforeAll(async () => {
    fake = await startFakeDiscord({ users: { [HUMAN]: { username: "ada" } } });
    client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl },
    });
    const started = Date.now();
    const ready = once(client, Events.ClientReady);
    await client.login(fake.token);
    await ready;
    loginMs = Date.now() - started;
  });

  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  it("logs in and turns ready within 5 s, with the guild's channels cached", () => {
    expect(loginMs).toBeLessThan(5_000);
    expect(client.user?.id).toBe(FAKE_DISCORD.botUserId);
    expect(client.application?.id).toBe(FAKE_DISCORD.applicationId);
    expect(client.guilds.cache.get(FAKE_DISCORD.guildId)?.name).toBe("Fake Guild");
    expect(client.channels.cache.get(FAKE_DISCORD.channelId)?.isTextBased()).toBe(true);
    expect(fake.identifies).toBe(1);
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toContain("GET /gateway/bot");
  });

  it("delivers a dispatched MESSAGE_CREATE with its content, author and mentions", async () => {
    const received = nextMessage(client);
    const sent = fake.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> what time is it?`,
    });
    const message = await received;
    expect(message.id).toBe(sent.id);
    expect(message.content).toBe(`<@${FAKE_DISCORD.botUserId}> what time is it?`);
    expect(message.guildId).toBe(FAKE_DISCORD.guildId);
    expect(message.author.username).toBe("ada");
    expect(message.mentions.users.has(FAKE_DISCORD.botUserId)).toBe(true);
  });

  it("records a reply as a POST with message_reference, then types and edits it", async () => {
    const received = nextMessage(client);
    const trigger = fake.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: "hello bot",
    });
    const message = await received;

    const reply = await message.reply("hi");
    const post = await fake.waitForCall("POST", /^\/channels\/\d+\/messages$/);
    expect(post.body.content).toBe("hi");
    expect(post.body.message_reference.message_id).toBe(trigger.id);
    expect(reply.reference?.messageId).toBe(trigger.id);
    expect(fake.messages.at(-1)).toMatchObject({ id: reply.id, content: "hi", type: 19 });

    // isSendable narrows away PartialGroupDMChannel, which has neither send nor sendTyping.
    if (!message.channel.isSendable()) throw new Error("the guild channel should be sendable");
    await message.channel.sendTyping();
    const typing = await fake.waitForCall("POST", /^\/channels\/\d+\/typing$/);
    expect(typing.status).toBe(204);

    const edited = await reply.edit("hi again");
    expect(edited.content).toBe("hi again");
    expect(edited.editedTimestamp).not.toBeNull();
    const patch = await fake.waitForCall("PATCH", new RegExp(`/messages/${reply.id}$`));
    expect(patch.body.content).toBe("hi again");
    expect(fake.messages.find((m) => m.id === reply.id)?.content).toBe("hi again");
  });

  it("refuses to edit a message someone else wrote, as Discord does", async () => {
    const received = nextMessage(client);
    fake.messageCreate({ channelId: FAKE_DISCORD.channelId, authorId: HUMAN, content: "mine" });
    const message = await received;
    await expect(message.edit("yours")).rejects.toMatchObject({ code: 50005, status: 403 });
  });

  it("delivers a DM to a partial channel, and the reply goes to that channel", async () => {
    const received = nextMessage(client);
    fake.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: "psst" });
    const message = await received;
    expect(message.guildId).toBeNull();
    expect(message.channel.isDMBased()).toBe(true);
    if (!message.channel.isSendable()) throw new Error("the DM channel should be sendable");
    await message.channel.send("hello in private");
    const post = await fake.waitForCall("POST", new RegExp(`^/channels/${DM_CHANNEL}/messages$`));
    expect(post.body.content).toBe("hello in private");
  });

  it("registers guild commands by bulk overwrite", async () => {
    const commands = await client.application?.commands.set(
      [{ name: "tools", description: "Tool availability" }],
      FAKE_DISCORD.guildId,
    );
    expect(commands?.first()?.name).toBe("tools");
    const put = await fake.waitForCall("PUT", /\/guilds\/\d+\/commands$/);
    expect(put.body).toEqual([expect.objectContaining({ name: "tools" })]);
  });

  it("resumes after a Reconnect without identifying again; a replay of a cached message is dropped", async () => {
    const first = nextMessage(client);
    const original = fake.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: "before the reconnect",
    });
    await first;

    const resumed = once(client, Events.ShardResume);
    fake.reconnect();
    await resumed;
    expect(fake.resumes).toBe(1);
    expect(fake.identifies).toBe(1);
    expect(fake.gatewayFrames.some((f) => f.op === 6)).toBe(true);

    // The fake replays nothing by itself: a test replays a message by reusing its id.
    // discord.js drops a MESSAGE_CREATE for a message still in its cache, so the
    // next messageCreate is the fresh message sent after the replay.
    const next = nextMessage(client);
    fake.messageCreate({
      id: original.id,
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: original.content,
    });
    fake.messageCreate({ channelId: FAKE_DISCORD.channelId, authorId: HUMAN, content: "after" });
    expect((await next).content).toBe("after");
  });
});

describe("the fake Discord serving two bots", () => {
  const SUPPORT = {
    token: "fake-discord-support-token",
    applicationId: "1100000000000000002",
    botUserId: "1100000000000000002",
    botUsername: "support",
  };
  const OTHER_GUILD = "1200000000000000002";
  const OTHER_CHANNEL = "1300000000000000002";
  let fake: FakeDiscord;
  let main: Client;
  let support: Client;

  const login = async (token: string) => {
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl },
    });
    const ready = once(client, Events.ClientReady);
    await client.login(token);
    await ready;
    return client;
  };

  beforeAll(async () => {
    fake = await startFakeDiscord({
      users: { [HUMAN]: { username: "ada" } },
      guilds: [
        {
          id: FAKE_DISCORD.guildId,
          name: "Fake Guild",
          channels: [{ id: FAKE_DISCORD.channelId, name: "general" }],
        },
        { id: OTHER_GUILD, name: "Main Only", channels: [{ id: OTHER_CHANNEL, name: "main" }] },
      ],
      bots: [{ ...SUPPORT, guilds: [FAKE_DISCORD.guildId] }],
    });
    main = await login(fake.token);
    support = await login(SUPPORT.token);
  });

  afterAll(async () => {
    await main?.destroy();
    await support?.destroy();
    await fake?.close();
  });

  it("logs each token in as its own bot user and application, in the guilds it is in", () => {
    expect(main.user?.id).toBe(FAKE_DISCORD.botUserId);
    expect(support.user?.id).toBe(SUPPORT.botUserId);
    expect(support.user?.username).toBe("support");
    expect(support.application?.id).toBe(SUPPORT.applicationId);
    expect([...main.guilds.cache.keys()].sort()).toEqual([FAKE_DISCORD.guildId, OTHER_GUILD]);
    expect([...support.guilds.cache.keys()]).toEqual([FAKE_DISCORD.guildId]);
    const bot = fake.account(SUPPORT.token);
    expect(bot.identifies).toBe(1);
    expect(fake.account(fake.token).identifies).toBe(1);
    expect(fake.identifies).toBe(2);
  });

  it("delivers a guild message to every bot in the guild and a DM to one bot only", async () => {
    const bot = fake.account(SUPPORT.token);
    const toMain = nextMessage(main);
    const toSupport = nextMessage(support);
    const sent = bot.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${SUPPORT.botUserId}> hi`,
    });
    expect((await toMain).id).toBe(sent.id);
    expect((await toSupport).mentions.users.has(SUPPORT.botUserId)).toBe(true);

    const dm = nextMessage(support, (m) => m.content === "just you");
    const mainHeard: string[] = [];
    const listener = (m: Message) => mainHeard.push(m.content);
    main.on(Events.MessageCreate, listener);
    bot.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: "just you" });
    await dm;
    // The main bot's next message proves the DM had its turn to arrive there, and did not.
    const mark = nextMessage(main, (m) => m.content === "mark");
    fake.messageCreate({ channelId: FAKE_DISCORD.channelId, authorId: HUMAN, content: "mark" });
    await mark;
    main.off(Events.MessageCreate, listener);
    expect(mainHeard).toEqual(["mark"]);
  });

  it("answers each REST call as the bot of its token, and keeps a bot out of guilds it is not in", async () => {
    const bot = fake.account(SUPPORT.token);
    const channel = await support.channels.fetch(FAKE_DISCORD.channelId);
    if (!channel?.isSendable()) throw new Error("the guild channel should be sendable");
    const posted = await channel.send("from support");
    expect(posted.author.id).toBe(SUPPORT.botUserId);
    const post = await bot.waitForCall("POST", /\/channels\/\d+\/messages$/);
    expect(post).toMatchObject({ token: SUPPORT.token, bot: SUPPORT.botUserId });
    expect(bot.messages.map((m) => m.content)).toEqual(["from support"]);
    expect(fake.account(fake.token).messages).toEqual([]);
    // The main bot cannot edit the support bot's message.
    const mainChannel = await main.channels.fetch(FAKE_DISCORD.channelId);
    if (!mainChannel?.isTextBased()) throw new Error("the guild channel should be text");
    const seenByMain = await mainChannel.messages.fetch(posted.id);
    await expect(seenByMain.edit("hijacked")).rejects.toMatchObject({ code: 50005 });
    // The support bot is not in the other guild: Discord answers Missing Access.
    await expect(support.channels.fetch(OTHER_CHANNEL)).rejects.toMatchObject({ code: 50001 });
  });

  it("redelivers a message to one bot only, and refuses a token it does not know", async () => {
    const bot = fake.account(SUPPORT.token);
    const heard = { main: 0, support: 0 };
    let id = "";
    const counter = (who: keyof typeof heard) => (packet: { t?: string; d?: { id?: string } }) => {
      if (packet.t === "MESSAGE_CREATE" && packet.d?.id === id) heard[who] += 1;
    };
    const onMain = counter("main");
    const onSupport = counter("support");
    main.on(Events.Raw, onMain);
    support.on(Events.Raw, onSupport);
    const original = fake.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: "once",
    });
    id = original.id;
    bot.redeliver(original);
    // Frames of one connection arrive in order: once "mark 2" is in, so is everything before it.
    const marks = [main, support].map((c) => nextMessage(c, (m) => m.content === "mark 2"));
    fake.messageCreate({ channelId: FAKE_DISCORD.channelId, authorId: HUMAN, content: "mark 2" });
    await Promise.all(marks);
    main.off(Events.Raw, onMain);
    support.off(Events.Raw, onSupport);
    expect(heard).toEqual({ main: 1, support: 2 });

    const stranger = new Client({
      intents: [GatewayIntentBits.Guilds],
      rest: { api: fake.apiUrl },
    });
    await expect(stranger.login("nobody-knows-this-token")).rejects.toMatchObject({
      code: "TokenInvalid",
    });
    await stranger.destroy();
  });
});
