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
