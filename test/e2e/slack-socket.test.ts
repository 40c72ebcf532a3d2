import { afterEach, describe, expect, it } from "vitest";
import type { SlackChannel } from "../../src/platforms/slack/channel.ts";
import { DEFAULT_SLACK } from "../../src/platforms/slack/config-section.ts";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, messageEvent } from "../../src/testing/fakes/slack-requests.ts";
import { type FakeSocketMode, startFakeSocketMode } from "../fakes/slack-socket.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { bigTool, lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";
import { fakeSlackChannel, SLACK_APP_TOKEN } from "../support/slack-harness.ts";

const APP_TOKEN = SLACK_APP_TOKEN;
const tools = [lookupTool, bigTool];

interface Setup {
  readonly pipe: Pipeline;
  readonly slack: FakeSlackApi;
  readonly socket: FakeSocketMode;
  readonly channel: SlackChannel;
}

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.channel.stop();
  await setup?.socket.close();
  await setup?.pipe.close();
  await setup?.slack.close();
  setup = undefined;
});

/** A Socket Mode channel (an app token, no signing secret) on the full pipeline. */
async function start({ appToken = APP_TOKEN } = {}): Promise<Setup> {
  const slack = await startFakeSlackApi({
    users: {
      U0HUMAN: { name: "human", real_name: "Hugo Human" },
      U0ADMIN: { name: "admin", real_name: "Ada Admin", is_admin: true },
    },
  });
  const socket = await startFakeSocketMode(slack, { appToken: APP_TOKEN, ackTimeoutMs: 3_000 });
  // The answer is read as mrkdwn, the edit path's; native streaming has its own file.
  const channel = fakeSlackChannel(slack, "socket", {
    appToken,
    settings: () => ({ ...DEFAULT_SLACK, streaming: "edit" }),
  });
  const skills = await loadSkills({ global: [], workspaces: {} });
  const pipe = await startPipeline({ tools, outbounds: { slack: channel.outbound }, skills });
  // Closing the pipeline before BullMQ's connections are ready leaves ioredis
  // "Connection is closed" rejections unhandled; the refused-token test closes at once.
  await pipe.app.worker?.worker.waitUntilReady();
  setup = { pipe, slack, socket, channel };
  await channel.start(channelRuntime(pipe, tools, { skills }));
  return setup;
}

/** What people see in a thread: the bot's messages in order, each as last edited. */
const visibleIn = (slack: FakeSlackApi, thread: string) =>
  slack.messages.filter((m) => m.thread_ts === thread && m.bot_id).map((m) => m.text);

describe("the Slack channel in Socket Mode", () => {
  it("connects with the app token, acks a mention and answers it once, in its thread", async () => {
    const { pipe, slack, socket } = await start();
    expect(slack.callsTo("apps.connections.open").map((c) => c.token)).toEqual([APP_TOKEN]);
    expect(socket.connections).toBe(1);
    pipe.fake.script({ content: "Hello over the **socket**." });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hi there` });
    const ts = mention.ts as string;

    const ack = await socket.sendEvent(mention, { envelopeId: "env-mention-1" });
    expect(ack).toMatchObject({ envelopeId: "env-mention-1", payload: {} });
    // The answer streams in: posted, then edited until it is whole.
    await until(() =>
      visibleIn(slack, ts).includes("Hello over the *socket*.") ? true : undefined,
    );
    expect(visibleIn(slack, ts)).toEqual(["Hello over the *socket*."]);
    expect(pipe.fake.requests[0]?.body.messages.at(-1)).toMatchObject({
      content: "hi there",
      name: "human",
    });
    // The client's heartbeat pings are answered, so it keeps the one connection.
    await until(() => (socket.pings > 0 ? true : undefined), 5_000);
    expect(socket.connections).toBe(1);
  });

  it("makes one turn when Slack redelivers the same event over the socket", async () => {
    const { pipe, slack, socket } = await start();
    pipe.fake.script({ content: "Only once." }, { content: "A second answer must not happen." });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> once please` });
    const ts = mention.ts as string;

    const first = await socket.sendEvent(mention, { eventId: "EvSock1" });
    const retry = await socket.sendEvent(mention, { eventId: "EvSock1", retryAttempt: 1 });
    // Slack also sends the plain message event for the same mention.
    await socket.sendEvent(messageEvent({ text: mention.text as string, ts }), {
      eventId: "EvSock2",
    });
    expect(retry.envelopeId).not.toBe(first.envelopeId);
    await until(() => (visibleIn(slack, ts).includes("Only once.") ? true : undefined));
    // A redelivery after the answer went out is no new message either.
    await socket.sendEvent(mention, { eventId: "EvSock1", retryAttempt: 2 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(visibleIn(slack, ts)).toEqual(["Only once."]);
    expect(pipe.fake.requests).toHaveLength(1);
    expect(socket.acks).toHaveLength(4);
  });

  it("answers /tools in the ack's payload", async () => {
    const { socket } = await start();
    const listed = await socket.sendSlashCommand({ userId: "U0ADMIN" });
    expect(listed.payload).toMatchObject({ response_type: "ephemeral" });
    expect(JSON.stringify(listed.payload)).toContain("2 of 2 tools available");

    const refused = await socket.sendSlashCommand({
      text: "off lookup channel",
      userId: "U0HUMAN",
    });
    expect(refused.payload.text).toContain(
      "Only workspace admins or the bot's configured admins can change the channel scope",
    );
  });

  it("refuses a bot token given as the app token, naming the variable", async () => {
    await expect(start({ appToken: FAKE_SLACK.botToken })).rejects.toThrow(
      /SLACK_APP_TOKEN must be an app-level token/,
    );
  });

  it("does not start with an app token Slack does not know", async () => {
    await expect(start({ appToken: "xapp-1-A0FAKEAPP-1700000000-wrong" })).rejects.toThrow(
      /invalid_auth/,
    );
    expect(setup?.socket.connections).toBe(0);
  });
});
