import { randomUUID } from "node:crypto";
import { WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { SlackDirectory } from "../../src/channels/slack/directory.ts";
import { SlackOutbound } from "../../src/channels/slack/outbound.ts";
import type { InboundMessage } from "../../src/core/agent/inbound.ts";
import { sendMessageTool } from "../../src/tools/send-message.ts";
import { FAKE_SLACK, type FakeSlackApi, startFakeSlackApi } from "../fakes/slack-api.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
let slack: FakeSlackApi | undefined;
afterEach(async () => {
  await pipe?.close();
  await slack?.close();
  pipe = slack = undefined;
});

const HUMAN = "U0HUMAN";
const BOT = FAKE_SLACK.botUserId;

async function start(): Promise<{ pipe: Pipeline; slack: FakeSlackApi }> {
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
    runtime: { mode: "full" },
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
