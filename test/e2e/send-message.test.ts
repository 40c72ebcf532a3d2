import { randomUUID } from "node:crypto";
import { WebClient } from "@slack/web-api";
import { PermissionFlagsBits } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { DiscordChannel } from "../../src/platforms/discord/channel.ts";
import { SlackDirectory } from "../../src/platforms/slack/directory.ts";
import { SlackOutbound } from "../../src/platforms/slack/outbound.ts";
import { TelegramChannel } from "../../src/platforms/telegram/channel.ts";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { sendMessageTool } from "../../src/tools/send-message.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
let slack: FakeSlackApi | undefined;
let discord: FakeDiscord | undefined;
let telegram: FakeTelegram | undefined;
afterEach(async () => {
  await pipe?.close();
  await slack?.close();
  await discord?.close();
  await telegram?.close();
  pipe = slack = discord = telegram = undefined;
});

const HUMAN = "U0HUMAN";
const BOT = FAKE_SLACK.botUserId;

/** `asking`: leave send_message at its own default, asking first. */
async function start(asking = false): Promise<{ pipe: Pipeline; slack: FakeSlackApi }> {
  slack = await startFakeSlackApi({ users: { [HUMAN]: { name: "human" } } });
  slack.channels.set("C0HERE", { name: "here", members: [HUMAN, BOT] });
  slack.channels.set("C0NEWS", { name: "news", members: [HUMAN, BOT] });
  slack.channels.set("C0SECRET", { name: "secret", is_private: true, members: [BOT] });
  slack.channels.set("C0ELSEWHERE", { name: "elsewhere", members: [HUMAN] });
  const client = new WebClient(FAKE_SLACK.botToken, {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
  });
  const outbound = new SlackOutbound(client);
  const directory = new SlackDirectory(client);
  const tool = sendMessageTool({
    outbound: (platform) => (platform === "slack" ? outbound : undefined),
    directory: (platform) => (platform === "slack" ? directory : undefined),
  });
  pipe = await startPipeline({
    tools: [tool],
    outbounds: { slack: outbound },
    // send_message is deferred; the full mode ships it so the model can call it at once.
    // It asks first by default; these tests are about what it does once allowed, so the
    // runtime scope switches it on by its id (the approval itself is test/e2e/*-approvals).
    runtime: asking ? { mode: "full" } : { mode: "full", keys: { send_message: true } },
  });
  return { pipe, slack };
}

function inSlack(p: Pipeline, text: string): InboundMessage {
  return p.message(text, {
    platform: "slack",
    workspace: FAKE_SLACK.teamId,
    channel: "C0HERE",
    conversation: "C0HERE",
    user: HUMAN,
    eventId: randomUUID(),
  });
}

const postsTo = (s: FakeSlackApi, channel: string) =>
  s.callsTo("chat.postMessage").filter((c) => c.args.channel === channel && c.status === 200);

/** The tool result the model got back for its send_message call. */
const toolResult = (p: Pipeline) =>
  p.fake.requests[1]?.body.messages.find((m: { role: string }) => m.role === "tool")?.content;

describe("send_message through the real Slack Web API client", () => {
  it("asks first by default: the request is posted here with its buttons, and nothing reaches #news", async () => {
    const { pipe, slack } = await start(true);
    pipe.fake.script({
      toolCalls: [
        { id: "c1", name: "send_message", arguments: { to: "#news", text: "Release is out" } },
      ],
    });
    await pipe.app.queue.enqueue(inSlack(pipe, "tell #news the release is out"));
    const request = await slack.waitForCall("chat.postMessage", {
      where: (c) => c.args.channel === "C0HERE",
    });
    expect(String(request.args.text)).toContain("send_message");
    const blocks = (request.args.blocks ?? []) as { type: string }[];
    expect(blocks.some((b) => b.type === "actions")).toBe(true);
    expect(postsTo(slack, "C0NEWS")).toHaveLength(0);
    // The turn waits for a person: the model was asked once and has no tool result yet.
    expect(pipe.fake.requests).toHaveLength(1);
  });

  it("posts into another channel the bot and the person are in, saying who asked", async () => {
    const { pipe, slack } = await start();
    pipe.fake.script(
      {
        toolCalls: [
          { id: "c1", name: "send_message", arguments: { to: "#news", text: "Release is out" } },
        ],
      },
      { content: "Done." },
    );
    await pipe.app.queue.enqueue(inSlack(pipe, "tell #news the release is out"));
    await slack.waitForCall("chat.postMessage", {
      where: (c) => c.args.channel === "C0HERE",
    });
    const [post] = postsTo(slack, "C0NEWS");
    expect(post?.args.text).toContain("Release is out");
    expect(post?.args.text).toContain(`sent at the request of <@${HUMAN}>`);
    expect(toolResult(pipe)).toMatch(/^Posted in #news/);
  });

  it("refuses a channel the person is not in, checked when the tool runs", async () => {
    const { pipe, slack } = await start();
    pipe.fake.script(
      {
        toolCalls: [{ id: "c1", name: "send_message", arguments: { to: "secret", text: "psst" } }],
      },
      { content: "I could not." },
    );
    await pipe.app.queue.enqueue(inSlack(pipe, "post psst in secret"));
    await slack.waitForCall("chat.postMessage", { where: (c) => c.args.channel === "C0HERE" });
    expect(postsTo(slack, "C0SECRET")).toHaveLength(0);
    expect(toolResult(pipe)).toBe(
      "Not sent to #secret: you are not a member of #secret; join it first, then ask again.",
    );
  });

  it("refuses a channel the bot is not in, by name or by id", async () => {
    const { pipe, slack } = await start();
    pipe.fake.script(
      {
        toolCalls: [
          {
            id: "c1",
            name: "send_message",
            arguments: { to: "<#C0ELSEWHERE|elsewhere>", text: "hi" },
          },
        ],
      },
      { content: "I am not there." },
    );
    await pipe.app.queue.enqueue(inSlack(pipe, "say hi in elsewhere"));
    await slack.waitForCall("chat.postMessage", { where: (c) => c.args.channel === "C0HERE" });
    expect(postsTo(slack, "C0ELSEWHERE")).toHaveLength(0);
    expect(toolResult(pipe)).toMatch(/I am not in a channel called .*invite me/);
  });

  it("follows a person leaving the channel: the next call is refused", async () => {
    const { pipe, slack } = await start();
    const call = (id: string) => ({
      toolCalls: [{ id, name: "send_message", arguments: { to: "C0NEWS", text: "again" } }],
    });
    pipe.fake.script(call("c1"), { content: "sent" }, call("c2"), { content: "not sent" });
    await pipe.app.queue.enqueue(inSlack(pipe, "post it"));
    await slack.waitForCall("chat.postMessage", { where: (c) => c.args.channel === "C0HERE" });
    slack.channels.get("C0NEWS")?.members.splice(0, 1);
    await pipe.app.queue.enqueue(inSlack(pipe, "post it again"));
    await slack.waitForCall("chat.postMessage", {
      where: (c) => c.args.channel === "C0HERE",
      count: 2,
    });
    expect(postsTo(slack, "C0NEWS")).toHaveLength(1);
    const last = pipe.fake.requests[3]?.body.messages.at(-1);
    expect(last.content).toMatch(/^Not sent to #news: you are not a member/);
  });
});

describe("send_message through Discord's REST API, as a worker process posts", () => {
  const GUILD = FAKE_DISCORD.guildId;
  const GENERAL = FAKE_DISCORD.channelId;
  const NEWS = "1300000000000000002";
  const MODS = "1300000000000000003";
  const HIDDEN = "1300000000000000004";
  const MOD_ROLE = "1400000000000000001";
  const ADA = "1000000000000000002";
  const MOD = "1000000000000000003";
  const STRANGER = "1000000000000000009";
  const bits = (...flags: bigint[]) => String(flags.reduce((a, b) => a | b, 0n));

  async function startDiscord(): Promise<{ pipe: Pipeline; discord: FakeDiscord }> {
    discord = await startFakeDiscord({
      users: { [ADA]: { username: "ada" }, [MOD]: { username: "mo" } },
      guilds: [
        {
          id: GUILD,
          name: "Guild",
          roles: [{ id: MOD_ROLE, name: "mods", permissions: "0" }],
          members: { [ADA]: { roles: [] }, [MOD]: { roles: [MOD_ROLE] } },
          channels: [
            { id: GENERAL, name: "general" },
            { id: NEWS, name: "news" },
            {
              id: MODS,
              name: "mods-only",
              overwrites: [
                { id: GUILD, type: 0, allow: "0", deny: bits(PermissionFlagsBits.SendMessages) },
                { id: MOD_ROLE, type: 0, allow: bits(PermissionFlagsBits.SendMessages), deny: "0" },
                {
                  id: FAKE_DISCORD.botUserId,
                  type: 1,
                  allow: bits(PermissionFlagsBits.SendMessages),
                  deny: "0",
                },
              ],
            },
            {
              id: HIDDEN,
              name: "hidden",
              overwrites: [
                { id: GUILD, type: 0, allow: "0", deny: bits(PermissionFlagsBits.ViewChannel) },
              ],
            },
          ],
        },
      ],
    });
    // A worker's channel: REST with the token, no gateway session.
    const channel = new DiscordChannel({ token: discord.token, apiUrl: discord.apiUrl });
    channel.useRestOnly();
    const tool = sendMessageTool({
      outbound: (platform) => (platform === "discord" ? channel.outbound : undefined),
      directory: (platform) => (platform === "discord" ? channel.directory : undefined),
    });
    pipe = await startPipeline({
      tools: [tool],
      outbounds: { discord: channel.outbound },
      runtime: { mode: "full", keys: { send_message: true } },
      streamEditMs: 0,
    });
    return { pipe, discord };
  }

  async function ask(
    p: Pipeline,
    d: FakeDiscord,
    user: string,
    to: string,
  ): Promise<{ result: string; postedTo: string[] }> {
    // By id, not by position: the fake drops a deleted message from `messages`, and the previous
    // ask's turn deletes its status line just after its answer lands, which can be after that ask
    // returned; an index taken before it would then skip this ask's first message.
    const earlier = new Set(d.messages.map((m) => m.id));
    const fresh = () => d.messages.filter((m) => !earlier.has(m.id));
    const text = `post it to ${to} (${randomUUID()})`;
    // Answered by what the request holds, not by a queue: a request sent again (a turn resumed
    // after its lease lapsed on a loaded machine) gets the same reply instead of the next one.
    let result: string | undefined;
    p.fake.setResponder((request) => {
      const last = request.body.messages.at(-1);
      if (last?.role === "tool") {
        result = String(last.content);
        return { content: "ok" };
      }
      return {
        toolCalls: [{ id: "c1", name: "send_message", arguments: { to, text: "Heads up" } }],
      };
    });
    await p.app.queue.enqueue(
      p.message(text, {
        platform: "discord",
        workspace: GUILD,
        channel: GENERAL,
        conversation: GENERAL,
        user,
        eventId: randomUUID(),
      }),
    );
    const deadline = Date.now() + 15_000;
    // The answer, not the status line ("Using send_message…") shown in #general while the tool runs.
    while (!fresh().some((m) => m.channel_id === GENERAL && m.content === "ok")) {
      if (Date.now() > deadline) throw new Error("no answer in #general");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return {
      result: result ?? "(the model never got a tool result)",
      postedTo: fresh()
        .filter((m) => m.channel_id !== GENERAL)
        .map((m) => m.channel_id),
    };
  }

  it("posts where the member may send messages, saying who asked", async () => {
    const { pipe, discord } = await startDiscord();
    const { result, postedTo } = await ask(pipe, discord, ADA, "#news");
    expect(postedTo).toEqual([NEWS]);
    expect(result).toMatch(/^Posted in #news/);
    const posted = discord.messages.find((m) => m.channel_id === NEWS);
    expect(posted?.content).toBe(`Heads up\n\n— sent at the request of <@${ADA}>`);
  });

  it("follows channel overwrites: a role allowed to post may, others may not", async () => {
    const { pipe, discord } = await startDiscord();
    const refused = await ask(pipe, discord, ADA, "mods-only");
    expect(refused.postedTo).toEqual([]);
    expect(refused.result).toBe(
      "Not sent to #mods-only: you cannot send messages in #mods-only; ask a server admin for access.",
    );
    const allowed = await ask(pipe, discord, MOD, `<#${MODS}>`);
    expect(allowed).toEqual({
      result: expect.stringMatching(/^Posted in #mods-only/),
      postedTo: [MODS],
    });
  });

  it("does not offer a channel the bot cannot see, nor post for someone outside the server", async () => {
    const { pipe, discord } = await startDiscord();
    const hidden = await ask(pipe, discord, ADA, "hidden");
    expect(hidden.postedTo).toEqual([]);
    expect(hidden.result).toMatch(/I am not in a channel called "hidden"/);
    const stranger = await ask(pipe, discord, STRANGER, "news");
    expect(stranger.postedTo).toEqual([]);
    expect(stranger.result).toBe("Not sent to #news: you are not a member of this server.");
  });
});

describe("send_message through the Telegram Bot API, as a worker process posts", () => {
  const HERE = -1001000000001;
  const TEAM = -1001000000002;
  const ANNOUNCE = -1001000000003;
  const LEFT = -1001000000004;
  const ADA = 5001;
  const QUIET = 5002;
  const OUTSIDER = 5003;

  async function startTelegramBot(): Promise<{ pipe: Pipeline; telegram: FakeTelegram }> {
    telegram = await startFakeTelegram();
    telegram.addChat({ id: HERE, type: "supergroup", title: "Here" });
    telegram.addChat({
      id: TEAM,
      type: "supergroup",
      title: "Team",
      username: "team_room",
      members: [ADA],
      restricted: [QUIET],
    });
    telegram.addChat({
      id: ANNOUNCE,
      type: "supergroup",
      title: "Announcements",
      admins: [9999],
      permissions: { can_send_messages: false },
    });
    telegram.addChat({ id: LEFT, type: "group", title: "Old", gone: [7_000_000_001] });
    const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
    const tool = sendMessageTool({
      outbound: (platform) => (platform === "telegram" ? channel.outbound : undefined),
      directory: (platform) => (platform === "telegram" ? channel.directory : undefined),
    });
    pipe = await startPipeline({
      tools: [tool],
      outbounds: { telegram: channel.outbound },
      runtime: { mode: "full", keys: { send_message: true } },
      streamEditMs: 0,
    });
    channel.useOutboundOnly(pipe.app.redis, pipe.prefix);
    return { pipe, telegram };
  }

  async function ask(
    p: Pipeline,
    t: FakeTelegram,
    user: number,
    to: string,
  ): Promise<{ result: string; postedTo: number[] }> {
    const before = t.messages.length;
    const requests = p.fake.requests.length;
    p.fake.script(
      { toolCalls: [{ id: "c1", name: "send_message", arguments: { to, text: "Heads up" } }] },
      { content: "ok" },
    );
    await p.app.queue.enqueue(
      p.message("post it", {
        platform: "telegram",
        workspace: String(HERE),
        channel: String(HERE),
        conversation: String(HERE),
        user: String(user),
        eventId: randomUUID(),
      }),
    );
    const deadline = Date.now() + 15_000;
    while (!t.messages.slice(before).some((m) => m.chat.id === HERE)) {
      if (Date.now() > deadline) throw new Error("no answer in the chat");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return {
      result: p.fake.requests[requests + 1]?.body.messages.at(-1).content,
      postedTo: t.messages
        .slice(before)
        .filter((m) => m.chat.id !== HERE)
        .map((m) => m.chat.id),
    };
  }

  it("posts into a chat the person is in, by @username, saying who asked", async () => {
    const { pipe, telegram } = await startTelegramBot();
    const { result, postedTo } = await ask(pipe, telegram, ADA, "@team_room");
    expect(postedTo).toEqual([TEAM]);
    expect(result).toMatch(/^Posted in Team/);
    const posted = telegram.messages.find((m) => m.chat.id === TEAM);
    expect(posted?.text).toContain("Heads up");
    expect(posted?.text).toContain("sent at the request of this person");
  });

  it("refuses where the person is not a member, is restricted, or the chat lets only admins post", async () => {
    const { pipe, telegram } = await startTelegramBot();
    const outsider = await ask(pipe, telegram, OUTSIDER, String(TEAM));
    expect(outsider.result).toBe("Not sent to Team: you are not a member of Team.");
    const quiet = await ask(pipe, telegram, QUIET, String(TEAM));
    expect(quiet.result).toBe("Not sent to Team: you may not send messages in Team.");
    const announce = await ask(pipe, telegram, ADA, String(ANNOUNCE));
    expect(announce.result).toBe(
      "Not sent to Announcements: you may not send messages in Announcements.",
    );
    expect([...outsider.postedTo, ...quiet.postedTo, ...announce.postedTo]).toEqual([]);
  });

  it("does not find a chat the bot has left", async () => {
    const { pipe, telegram } = await startTelegramBot();
    const { result, postedTo } = await ask(pipe, telegram, ADA, String(LEFT));
    expect(postedTo).toEqual([]);
    expect(result).toMatch(/I am not in a channel called/);
  });
});
