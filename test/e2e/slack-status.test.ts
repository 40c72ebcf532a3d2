import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import type { SlackChannel } from "../../src/platforms/slack/channel.ts";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { fakeSlackChannel, SLACK_SECRET } from "../support/slack-harness.ts";

/** A web_search that takes its time, so its status is seen while it runs. */
const slowSearch = defineTool({
  id: "web_search",
  description: "Searches the web.",
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }) => {
    await new Promise((resolve) => setTimeout(resolve, 600));
    return `results for ${query}`;
  },
});

let setup: { pipe: Pipeline; slack: FakeSlackApi; channel: SlackChannel } | undefined;
afterEach(async () => {
  await setup?.channel.stop();
  await setup?.pipe.close();
  await setup?.slack.close();
  setup = undefined;
});

async function start() {
  const slack = await startFakeSlackApi({ users: { U0HUMAN: { name: "human" } } });
  const channel = fakeSlackChannel(slack, "http");
  const skills = await loadSkills({ global: [], workspaces: {} });
  const tools = [slowSearch];
  const pipe = await startPipeline({ tools, outbounds: { slack: channel.outbound }, skills });
  await channel.start(channelRuntime(pipe, tools, { skills }));
  setup = { pipe, slack, channel };
  return { ...setup, events: `http://127.0.0.1:${channel.port}/slack/events` };
}

describe("the Slack status line on the real Bolt app and WebClient", () => {
  it("says the bot is searching the web while web_search runs, then clears once the answer is posted", async () => {
    const { pipe, slack, events } = await start();
    pipe.fake.script(
      { toolCalls: [{ name: "web_search", arguments: { query: "my private question" } }] },
      { content: "Here is what I found." },
    );
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> look it up` });
    await sendEvent(events, SLACK_SECRET, mention, { eventId: "EvStatus1" });
    await until(() =>
      slack.callsTo("assistant.threads.setStatus").some((c) => c.args.status === "")
        ? true
        : undefined,
    );
    const statuses = slack.callsTo("assistant.threads.setStatus");
    const shown = statuses.map((c) => c.args.status);
    // Consecutive repeats are the 4 s refresh of a status that lasts. A change waits for the
    // status pace, so "is thinking…" after the search is skipped when the answer is posted
    // first (a full run saw that); the search itself must always show.
    expect([
      ["is thinking…", "is searching the web…", "is thinking…", ""],
      ["is thinking…", "is searching the web…", ""],
    ]).toContainEqual(shown.filter((s, i) => s !== shown[i - 1]));
    expect(statuses.every((c) => c.args.thread_ts === mention.ts)).toBe(true);
    expect(statuses.every((c) => c.args.channel_id === mention.channel)).toBe(true);
    // Cleared after the answer went out, and the query never shown.
    // The answer lands by its last post, edit or stream call (natively streamed in a thread: stopStream).
    const answered = [
      ...slack.callsTo("chat.postMessage"),
      ...slack.callsTo("chat.update"),
      ...slack.callsTo("chat.startStream"),
      ...slack.callsTo("chat.appendStream"),
      ...slack.callsTo("chat.stopStream"),
    ]
      .sort((a, b) => a.at - b.at)
      .at(-1);
    expect(slack.messages.filter((m) => m.bot_id).map((m) => m.text)).toEqual([
      "Here is what I found.",
    ]);
    expect(statuses.at(-1)?.at ?? 0).toBeGreaterThanOrEqual(
      answered?.at ?? Number.POSITIVE_INFINITY,
    );
    expect(JSON.stringify(statuses.map((c) => c.args))).not.toContain("private");
  });
});
