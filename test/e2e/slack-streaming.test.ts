import { WebClient } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { DEFAULT_SLACK, type SlackConfig } from "../../src/platforms/slack/config-section.ts";
import { SlackStreams } from "../../src/platforms/slack/stream.ts";
import { FAKE_SLACK, type FakeSlackApi } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { SLACK_SECRET, useSlackHarness, visibleIn } from "../support/slack-harness.ts";

const harness = useSlackHarness();

/** The pipeline and one HTTP ingress on a fake Slack, answers streaming in `streaming` mode. */
async function start(streaming: SlackConfig["streaming"], streamEditMs = 300) {
  const h = await harness({
    tools: [],
    settings: () => ({ ...DEFAULT_SLACK, streaming }),
    pipeline: { streamEditMs },
  });
  return { pipe: h.pipe, slack: h.slack, events: h.events[0] as string };
}

const WRITES = ["chat.postMessage", "chat.update", "chat.startStream", "chat.appendStream"];
const writesOf = (slack: FakeSlackApi) =>
  slack.calls.filter((c) => [...WRITES, "chat.stopStream"].includes(c.method));

/** A 2,000-character answer the model streams over about four seconds, 50 characters at a time. */
const LONG = `${Array.from({ length: 40 }, (_, i) => `Part ${i} `.padEnd(49, "x"))
  .join(" ")
  .padEnd(1_996, ".")} end`;

/** Calls and bytes of text sent to stream {@link LONG} in a thread, in one streaming mode. */
async function streamLong(streaming: SlackConfig["streaming"]) {
  const { pipe, slack, events } = await start(streaming, 1_000);
  pipe.fake.script({ content: LONG, contentChunkChars: 50, chunkDelayMs: 100 });
  const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> tell me everything` });
  const ts = mention.ts as string;
  await sendEvent(events, SLACK_SECRET, mention, { eventId: `Ev-${streaming}` });
  await until(() => (visibleIn(slack, ts).at(-1) === LONG ? true : undefined), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const writes = writesOf(slack);
  const text = (c: (typeof writes)[number]) =>
    String(c.args.text ?? c.args.markdown_text ?? "") +
    (Array.isArray(c.args.chunks)
      ? c.args.chunks.map((k: { text?: string }) => k.text).join("")
      : "");
  const bytes = writes.reduce((sum, c) => sum + Buffer.byteLength(text(c)), 0);
  const byMethod = Object.fromEntries(
    [...new Set(writes.map((c) => c.method))].map((m) => [
      m,
      writes.filter((c) => c.method === m).length,
    ]),
  );
  return { slack, ts, calls: writes.length, bytes, byMethod };
}

describe("Slack answers stream with Slack's streaming API", () => {
  it("streams a reply in a thread to its recipient and leaves one message, the whole answer, keyed", async () => {
    const { pipe, slack, events } = await start("native");
    const answer = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: `**Stream:** ${answer}`, chunkDelayMs: 40 });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> stream it` });
    const ts = mention.ts as string;
    await sendEvent(events, SLACK_SECRET, mention, { eventId: "Ev1" });
    await until(() => slack.streams.find((s) => s.stopped));
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Slack renders markdown_text: the message is the model's markdown, once.
    expect(visibleIn(slack, ts)).toEqual([`**Stream:** ${answer}`]);
    const [stream] = slack.streams;
    expect(slack.streams).toHaveLength(1);
    expect(stream).toMatchObject({ recipient: "U0HUMAN", team: FAKE_SLACK.teamId, stopped: true });
    expect(stream?.appends ?? 0).toBeGreaterThan(0);
    expect(slack.callsTo("chat.startStream")[0]?.args).toMatchObject({ thread_ts: ts });
    // No post and no edit: the stream is the answer.
    expect(slack.callsTo("chat.postMessage")).toHaveLength(0);
    expect(slack.callsTo("chat.update")).toHaveLength(0);
    const message = slack.messages.find((m) => m.ts === stream?.ts);
    expect(message?.metadata).toMatchObject({ event_type: "switchyard_reply" });
  });

  it("falls back to post-and-edit in a DM answered in place, where Slack takes no stream", async () => {
    const { pipe, slack, events } = await start("native");
    pipe.fake.script({ content: "Plain and **simple** in a DM.", chunkDelayMs: 30 });
    await sendEvent(
      events,
      SLACK_SECRET,
      messageEvent({ text: "hello", channel: "D0HUGO", channelType: "im" }),
      { eventId: "Ev2" },
    );
    await until(() =>
      slack.messages.some((m) => m.channel === "D0HUGO" && m.text.includes("*simple*"))
        ? true
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(slack.callsTo("chat.startStream")).toHaveLength(0);
    expect(slack.messages.filter((m) => m.channel === "D0HUGO").map((m) => m.text)).toEqual([
      "Plain and *simple* in a DM.",
    ]);
  });

  it("posts and edits everywhere when the setting says streaming: edit", async () => {
    const { pipe, slack, events } = await start("edit");
    pipe.fake.script({ content: "Edited **in place**.", chunkDelayMs: 30 });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> edit it` });
    const ts = mention.ts as string;
    await sendEvent(events, SLACK_SECRET, mention, { eventId: "Ev3" });
    await until(() => (visibleIn(slack, ts).includes("Edited *in place*.") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(visibleIn(slack, ts)).toEqual(["Edited *in place*."]);
    expect(slack.callsTo("chat.startStream")).toHaveLength(0);
    expect(slack.callsTo("chat.postMessage")).toHaveLength(1);
  });

  it("ends the stream with the text so far and the cut-short note when the turn is stopped", async () => {
    const { pipe, slack, events } = await start("native");
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: words, chunkDelayMs: 100 });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> go on and on` });
    const ts = mention.ts as string;
    await sendEvent(events, SLACK_SECRET, mention, { eventId: "Ev4" });
    await slack.waitForCall("chat.appendStream", { timeoutMs: 15_000 });
    const address = {
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
      conversation: `C0GENERAL:${ts}`,
    };
    expect(await pipe.app.signals.send(address, "stop")).toBe(true);
    await until(() => slack.streams.find((s) => s.stopped));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const [shown] = visibleIn(slack, ts);
    expect(visibleIn(slack, ts)).toHaveLength(1);
    const [partial, note] = (shown ?? "").split("\n\n");
    expect(note).toBe("_(stopped)_");
    expect(words.startsWith(partial ?? "")).toBe(true);
    expect(partial?.length).toBeLessThan(words.length);
    expect(slack.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("measures the Slack calls of a streamed 2,000-character answer, native against edits", async () => {
    const native = await streamLong("native");
    expect(visibleIn(native.slack, native.ts)).toEqual([LONG]);
    const edits = await streamLong("edit");
    expect(visibleIn(edits.slack, edits.ts)).toHaveLength(1);
    console.log(
      `slack 2,000-character answer: native ${native.calls} calls ${JSON.stringify(native.byMethod)} ${native.bytes} bytes of text; edit ${edits.calls} calls ${JSON.stringify(edits.byMethod)} ${edits.bytes} bytes of text`,
    );
    // Appends carry only what is new; every edit carries the whole answer so far.
    expect(native.bytes).toBeLessThan(edits.bytes);
  }, 60_000);
});

describe("a resumed Slack stream", () => {
  it("is found past a notice the ingress posted in the same thread, and the notice is left as it was", async () => {
    const { slack, events } = await start("native");
    const thread = "1600000000.000100";
    // A message too long to queue: the ingress answers it on the spot, in the thread.
    const long = appMentionEvent({
      text: `<@${FAKE_SLACK.botUserId}> ${"x".repeat(100_001)}`,
      threadTs: thread,
    });
    await sendEvent(events, SLACK_SECRET, long, { eventId: "EvLong" });
    const notice = await until(() =>
      slack.messages.find((m) => m.thread_ts === thread && m.text.includes("characters long")),
    );
    // Then a worker started streaming its answer there and died before it stopped the stream.
    const client = new WebClient(FAKE_SLACK.botToken, {
      slackApiUrl: slack.url,
      retryConfig: { retries: 0 },
    });
    const started = await client.chat.startStream({
      channel: "C0GENERAL",
      thread_ts: thread,
      markdown_text: "Half an ans",
      recipient_user_id: "U0HUMAN",
      recipient_team_id: FAKE_SLACK.teamId,
    });
    const target = {
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
      conversation: thread,
      thread,
      replyTo: thread,
    };
    const streams = new SlackStreams(client, () => "native");
    expect(await streams.find(target)).toBe(started.ts);
    await streams.finish(target, started.ts as string, "The whole answer.", { key: "k1" });
    expect(slack.messages.find((m) => m.ts === notice.ts)?.text).toBe(notice.text);
    expect(slack.messages.find((m) => m.ts === started.ts)?.text).toBe("The whole answer.");
  });
});
