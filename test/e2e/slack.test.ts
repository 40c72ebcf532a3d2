import { createTestBot, type ModelScript, type TestBot } from "switchyard/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { SlackChannel } from "../../src/platforms/slack/channel.ts";
import { DEFAULT_SLACK, type SlackConfig } from "../../src/platforms/slack/config-section.ts";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendBlockAction,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { bigTool, lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";
import { REDIS_URL } from "../support/redis.ts";

import { fakeSlackChannel, SLACK_SECRET } from "../support/slack-harness.ts";

/** The Cluster run's nodes (vitest.cluster.config.ts), for the tests driven through switchyard/testing. */
const CLUSTER_NODES =
  process.env.REDIS_TOPOLOGY === "cluster"
    ? process.env.REDIS_CLUSTER_NODES?.split(",")
    : undefined;

const SECRET = SLACK_SECRET;
const tools = [lookupTool, bigTool];

interface Setup {
  readonly pipe: Pipeline;
  readonly slack: FakeSlackApi;
  readonly channel: SlackChannel;
  readonly events: string;
}

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.channel.stop();
  await setup?.pipe.close();
  await setup?.slack.close();
  setup = undefined;
});

async function start(
  settings?: () => SlackConfig,
  config?: () => SwitchyardConfig,
): Promise<Setup> {
  const slack = await startFakeSlackApi({
    users: {
      U0HUMAN: { name: "human", real_name: "Hugo Human" },
      U0ADMIN: { name: "admin", real_name: "Ada Admin", is_admin: true },
    },
  });
  // These cases read answers as mrkdwn, the edit path's; native streaming has its own file.
  const edits = () => ({ ...DEFAULT_SLACK, streaming: "edit" as const });
  const chosen = settings ?? (config ? undefined : edits);
  const channel = fakeSlackChannel(slack, "http", chosen ? { settings: chosen } : {});
  const skills = await loadSkills({ global: [], workspaces: {} });
  const pipe = await startPipeline({ tools, outbounds: { slack: channel.outbound }, skills });
  await channel.start(channelRuntime(pipe, tools, { skills, ...(config ? { config } : {}) }));
  setup = { pipe, slack, channel, events: `http://127.0.0.1:${channel.port}/slack/events` };
  return setup;
}

const postsIn = (slack: FakeSlackApi, thread?: string) =>
  slack
    .callsTo("chat.postMessage")
    .filter((c) => c.status === undefined || c.status === 200)
    .filter((c) => thread === undefined || c.args.thread_ts === thread);

/** What people see in a thread: the bot's messages in order, each as last edited. */
const visibleIn = (slack: FakeSlackApi, thread: string) =>
  slack.messages.filter((m) => m.thread_ts === thread && m.bot_id).map((m) => m.text);

describe("the Slack channel on the real Bolt app", () => {
  it("answers a mention once, in its thread, even when Slack delivers the event three times", async () => {
    const { pipe, slack, events } = await start();
    pipe.fake.script({ content: "Hello from **Switchyard**." });
    const mention = appMentionEvent({
      text: `<@${FAKE_SLACK.botUserId}> hi there, ask <@U0ADMIN> &amp; me`,
    });
    const ts = mention.ts as string;
    const first = await sendEvent(events, SECRET, mention, { eventId: "Ev1" });
    expect(first.status).toBe(200);
    await sendEvent(events, SECRET, mention, { eventId: "Ev1", retryNum: 1 });
    await sendEvent(events, SECRET, mention, { eventId: "Ev1", retryNum: 2 });
    // Slack also sends the plain message event for the same mention.
    await sendEvent(events, SECRET, messageEvent({ text: mention.text as string, ts }), {
      eventId: "Ev2",
    });
    await until(() =>
      visibleIn(slack, ts).includes("Hello from *Switchyard*.") ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(visibleIn(slack, ts)).toEqual(["Hello from *Switchyard*."]);
    expect(pipe.fake.requests).toHaveLength(1);
    // Mentions read as names, Slack's entities as text, and the sender is named.
    expect(pipe.fake.requests[0]?.body.messages.at(-1)).toMatchObject({
      content: "hi there, ask @admin & me",
      name: "human",
    });
  });

  it("refuses a request with a bad signature with 401", async () => {
    const { events } = await start();
    const result = await sendEvent(events, "not-the-secret", appMentionEvent({ text: "hi" }));
    expect(result.status).toBe(401);
  });

  it("lets an admin, not anyone, switch a tool off for the channel; the next turn's request lacks it", async () => {
    const { pipe, slack, events } = await start();
    const refused = await sendSlashCommand(events, SECRET, {
      text: "off lookup channel",
      userId: "U0HUMAN",
    });
    expect(refused.status).toBe(200);
    expect(JSON.stringify(refused.body)).toContain(
      "Only workspace admins or the bot's configured admins can change the channel scope",
    );
    const done = await sendSlashCommand(events, SECRET, {
      text: "off lookup channel",
      userId: "U0ADMIN",
    });
    expect(JSON.stringify(done.body)).toContain("lookup is now off in this channel");

    pipe.fake.script({ content: "ok" });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> go` });
    await sendEvent(events, SECRET, mention);
    await until(() => (postsIn(slack, mention.ts as string).length ? true : undefined));
    const names = (pipe.fake.requests[0]?.body.tools ?? []).map(
      (t: { function: { name: string } }) => t.function.name,
    );
    expect(names).not.toContain("lookup");
  });

  it("shows /tools as Block Kit and a button click switches the tool and updates the message", async () => {
    const { slack, events, pipe } = await start();
    const listed = await sendSlashCommand(events, SECRET, { userId: "U0ADMIN" });
    const body = listed.body as { blocks: { accessory?: { action_id: string; value: string } }[] };
    const button = body.blocks.map((b) => b.accessory).find((a) => a?.value?.includes("lookup"));
    expect(button?.action_id).toMatch(/^tools:toggle/);
    const responseUrl = slack.responseUrl({ channel: "C0GENERAL", messageTs: "1700000000.000900" });
    await sendBlockAction(events, SECRET, {
      actionId: button?.action_id as string,
      value: button?.value as string,
      userId: "U0ADMIN",
      messageTs: "1700000000.000900",
      responseUrl,
    });
    const updated = await until(() => slack.responses.at(-1));
    expect(JSON.stringify(updated)).toContain("1 of 2 tools available");
    const { intent } = await pipe.app.store.intent.read({
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
      conversation: "C0GENERAL",
    });
    expect(intent.decisions).toEqual({ lookup: false });
  });
});

/** Two mentions in C0SHARED (session: channel) and two in C0GENERAL: one conversation there, a thread each here. */
async function channelIsOneConversation({ pipe, slack, events }: Setup): Promise<void> {
  pipe.fake.script(
    { content: "one" },
    { content: "two" },
    { content: "three" },
    { content: "four" },
  );
  const ask = async (channel: string, text: string) => {
    const mention = appMentionEvent({ channel, text: `<@${FAKE_SLACK.botUserId}> ${text}` });
    await sendEvent(events, SECRET, mention);
    await until(() => (visibleIn(slack, mention.ts as string).length ? true : undefined));
  };
  await ask("C0SHARED", "first");
  await ask("C0SHARED", "second");
  await ask("C0GENERAL", "third");
  await ask("C0GENERAL", "fourth");
  const users = (i: number) =>
    pipe.fake.requests[i]?.body.messages.filter((m: { role: string }) => m.role === "user").length;
  expect(users(1)).toBe(2); // the shared channel remembers the first mention
  expect(users(3)).toBe(1); // a new thread elsewhere starts fresh
}

describe("Slack session scope", () => {
  it("makes a whole channel one conversation where the config says so, and threads elsewhere", async () => {
    await channelIsOneConversation(
      await start(() => ({ ...DEFAULT_SLACK, channels: { C0SHARED: { session: "channel" } } })),
    );
  });
  it("reads its settings from the bot's config when it is built without any", async () => {
    await channelIsOneConversation(
      await start(undefined, () => ({
        ...EMPTY_CONFIG,
        slack: { ...DEFAULT_SLACK, channels: { C0SHARED: { session: "channel" } } },
      })),
    );
  });
});

describe("/skills in Slack", () => {
  it("lists skills as Block Kit; a non-admin is refused the channel scope, an admin's click switches one off", async () => {
    const { slack, events, pipe } = await start();
    const refused = await sendSlashCommand(events, SECRET, {
      command: "/skills",
      text: "off bot-guide channel",
      userId: "U0HUMAN",
    });
    expect(JSON.stringify(refused.body)).toMatch(
      /Only workspace admins or the bot's configured admins/,
    );

    const listed = await sendSlashCommand(events, SECRET, {
      command: "/skills",
      userId: "U0ADMIN",
    });
    const body = listed.body as { blocks: { accessory?: { action_id: string; value: string } }[] };
    expect(JSON.stringify(body)).toContain("2 of 2 skills available");
    const button = body.blocks
      .map((b) => b.accessory)
      .find((a) => a?.value?.startsWith("bot-guide|"));
    expect(button?.action_id).toMatch(/^skills:toggle/);
    const responseUrl = slack.responseUrl({ channel: "C0GENERAL", messageTs: "1700000000.000950" });
    await sendBlockAction(events, SECRET, {
      actionId: button?.action_id as string,
      value: button?.value as string,
      userId: "U0ADMIN",
      messageTs: "1700000000.000950",
      responseUrl,
    });
    const updated = await until(() => slack.responses.at(-1));
    expect(JSON.stringify(updated)).toContain("1 of 2 skills available");
    const toggles = await pipe.app.store.scopes.readSkills("channel", {
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
    });
    expect(toggles).toEqual({ "bot-guide": false });
  });
});

describe("Slack rate limits", () => {
  it("waits out a 429's Retry-After and still delivers the answer once", async () => {
    const slack = await startFakeSlackApi({ users: { U0HUMAN: { name: "human" } } });
    const channel = fakeSlackChannel(slack, "http", { retries: 2 });
    const pipe = await startPipeline({
      tools,
      outbounds: { slack: channel.outbound },
      streamEditMs: 0,
    });
    await channel.start(channelRuntime(pipe, tools));
    setup = { pipe, slack, channel, events: `http://127.0.0.1:${channel.port}/slack/events` };
    pipe.fake.script({ content: "after the wait" });
    slack.rateLimit("chat.postMessage", 1, 1);
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hi` });
    const started = Date.now();
    await sendEvent(setup.events, SECRET, mention);
    await until(() => (visibleIn(slack, mention.ts as string).length ? true : undefined));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(visibleIn(slack, mention.ts as string)).toEqual(["after the wait"]);
    const attempts = slack
      .callsTo("chat.postMessage")
      .filter((c) => c.args.thread_ts === mention.ts);
    expect(attempts.map((c) => c.status ?? 200)).toEqual([429, 200]);
  });
});

describe("Slack turns and toggles", () => {
  it("runs a tool call round trip; an admin's /tools off mid-turn leaves that turn alone and applies to the next", async () => {
    const { pipe, slack, events } = await start();
    let toggled: Promise<unknown> | undefined;
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "lookup", arguments: { word: "lease" } }] },
      async () => {
        // While this turn runs, an admin switches lookup off for the channel.
        toggled = sendSlashCommand(events, SECRET, {
          text: "off lookup channel",
          userId: "U0ADMIN",
        });
        await toggled;
        return { toolCalls: [{ id: "c2", name: "lookup", arguments: { word: "again" } }] };
      },
      { content: "A lease is a lock with a timeout." },
      { content: "next turn" },
    );
    const mention = appMentionEvent({
      channel: "C0GENERAL",
      text: `<@${FAKE_SLACK.botUserId}> what is a lease?`,
    });
    await sendEvent(events, SECRET, mention);
    const thread = mention.ts as string;
    await until(() =>
      visibleIn(slack, thread).includes("A lease is a lock with a timeout.") ? true : undefined,
    );
    const names = (i: number) =>
      (pipe.fake.requests[i]?.body.tools ?? []).map(
        (t: { function: { name: string } }) => t.function.name,
      );
    // The running turn kept its tools: both calls ran and returned glossary results.
    expect(names(2)).toContain("lookup");
    const results = pipe.fake.requests[2]?.body.messages.filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      "glossary: lease means something",
      "glossary: again means something",
    ]);
    // The next message in the thread gets a turn without it.
    await sendEvent(
      events,
      SECRET,
      messageEvent({ channel: "C0GENERAL", text: "and now?", threadTs: thread }),
    );
    await until(() => (visibleIn(slack, thread).includes("next turn") ? true : undefined));
    expect(names(3)).not.toContain("lookup");
  });
});

/**
 * The same Slack, through the test kit's public API (`switchyard/testing`):
 * the whole bot from createBot, on the edit path's streaming.
 */
describe("the Slack channel, driven through switchyard/testing", () => {
  const running: TestBot[] = [];
  afterEach(async () => {
    for (const bot of running.splice(0)) await bot.stop();
  });
  const kitBot = async (model: ModelScript) => {
    const bot = await createTestBot({
      tools,
      builtins: [],
      model,
      // The topology under test: the Cluster's nodes in the Cluster run, else the one Redis.
      redis: CLUSTER_NODES ? { cluster: CLUSTER_NODES } : REDIS_URL,
      config: "access:\n  dm: open\nslack:\n  streaming: edit\n",
    });
    running.push(bot);
    return bot;
  };

  it("answers follow-ups in a thread it is part of, and !tools typed there, and nothing in a thread it is not in", async () => {
    const bot = await kitBot({ sequence: ["first", "second"] });
    const said = await bot.say("start", { channel: "C0GENERAL" });
    expect((await bot.nextAnswer()).posts).toMatchObject([{ thread: said.thread, text: "first" }]);
    const inThread = { channel: "C0GENERAL", thread: said.thread as string, mention: false };
    await bot.say("and more", inThread);
    expect((await bot.nextAnswer()).posts).toMatchObject([{ thread: said.thread, text: "second" }]);
    await bot.say("!tools", inThread);
    expect((await bot.nextAnswer()).text).toMatch(/^2 of 2 tools available/);
    // A message in a thread the bot is not in is not for it.
    await bot.say("unrelated", { ...inThread, thread: "1699999999.000100" });
    await expect(bot.nextAnswer({ timeoutMs: 400 })).rejects.toThrow(/No answer within 400 ms/);
    expect(bot.model.requests()).toHaveLength(2);
  });

  it("delivers a 10,000-character answer split into messages, intact", async () => {
    const paragraphs = Array.from(
      { length: 50 },
      (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(16)}`,
    );
    const answer = paragraphs.join("\n\n");
    expect(answer.length).toBeGreaterThan(10_000);
    const bot = await kitBot({ sequence: [answer] });
    const said = await bot.say("long please", { channel: "C0GENERAL" });
    const shown = (await bot.nextAnswer()).posts;
    expect(shown.length).toBeGreaterThan(2);
    for (const post of shown) {
      expect(post.thread).toBe(said.thread);
      expect(post.text.length).toBeLessThanOrEqual(4_000);
    }
    const joined = shown.map((p) => p.text).join("\n\n");
    for (const p of paragraphs) expect(joined).toContain(p.trim());
  });
});
