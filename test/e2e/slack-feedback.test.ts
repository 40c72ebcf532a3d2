import { describe, expect, it } from "vitest";
import { FEEDBACK_REPLIES } from "../../src/ingress/feedback-desk.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { FAKE_SLACK, type FakeSlackApi } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
  sendSigned,
} from "../../src/testing/fakes/slack-requests.ts";
import { adopt, slackFixtures } from "../fakes/slack-fixtures.ts";
import { until } from "../support/channels.ts";
import { SLACK_SECRET, settle, useSlackHarness } from "../support/slack-harness.ts";

const start = useSlackHarness();
const CHANNEL = "C0GENERAL";

interface FeedbackElement {
  readonly type: string;
  readonly action_id: string;
  readonly positive_button: { readonly value: string; readonly text: { readonly text: string } };
  readonly negative_button: { readonly value: string; readonly text: { readonly text: string } };
}

/** The feedback buttons under a message: Slack's context_actions block, or none. */
function thumbsOf(slack: FakeSlackApi, ts: string): FeedbackElement | undefined {
  const message = slack.messages.find((m) => m.ts === ts);
  const block = (message?.blocks ?? []).find(
    (b) => (b as { type: string }).type === "context_actions",
  ) as { elements: FeedbackElement[] } | undefined;
  return block?.elements[0];
}

function botMessagesIn(slack: FakeSlackApi, thread: string) {
  return slack.messages.filter((m) => m.thread_ts === thread && m.bot_id);
}

/** A click on a feedback button as Slack sends it: a block_actions payload whose action carries the pressed button's value. */
function clickPayload(value: string, user: string, messageTs: string, thread: string, url: string) {
  const [fixture] = slackFixtures("interactive").filter((f) => f.name.endsWith("block-actions"));
  const payload = structuredClone(adopt(fixture?.payload, fixture?.bot));
  payload.user = { ...payload.user, id: user, team_id: FAKE_SLACK.teamId };
  payload.team = { id: FAKE_SLACK.teamId, domain: FAKE_SLACK.teamDomain };
  payload.channel = { id: CHANNEL, name: "general" };
  payload.container = {
    ...payload.container,
    message_ts: messageTs,
    channel_id: CHANNEL,
    is_ephemeral: false,
    thread_ts: thread,
  };
  payload.trigger_id = `${Date.now()}.${Math.floor(Math.random() * 1e9)}.0a1b2c`;
  payload.response_url = url;
  payload.actions = [
    {
      type: "feedback_buttons",
      action_id: "control:0",
      block_id: "controls",
      value,
      action_ts: `${(Date.now() / 1000).toFixed(6)}`,
    },
  ];
  return payload;
}

async function click(url: string, payload: unknown) {
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return sendSigned(url, SLACK_SECRET, form, "application/x-www-form-urlencoded", {});
}

async function feedbackCounts(metrics: Metrics) {
  const metric = await metrics.registry.getSingleMetric("switchyard_feedback_total")?.get();
  const of = (vote: string) => metric?.values.find((v) => v.labels.vote === vote)?.value ?? 0;
  return { up: of("up"), down: of("down") };
}

describe("feedback on Slack answers", () => {
  it("puts Slack's feedback buttons under the last part of an answer only, streamed or split", async () => {
    const h = await start();
    // A short answer is streamed: its one message gets the buttons when its stream stops.
    h.pipe.fake.script({ content: "Short and streamed, word by word.", chunkDelayMs: 250 });
    const short = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> short please` });
    await sendEvent(h.events[0] as string, SLACK_SECRET, short);
    const shortTs = short.ts as string;
    const [answer] = await until(() => {
      const shown = botMessagesIn(h.slack, shortTs);
      return shown[0]?.blocks?.length ? shown : undefined;
    });
    const thumbs = thumbsOf(h.slack, answer?.ts as string);
    expect(thumbs).toMatchObject({
      type: "feedback_buttons",
      positive_button: { text: { text: "👍" } },
      negative_button: { text: { text: "👎" } },
    });
    expect(thumbs?.positive_button.value).toMatch(/^fb:[a-z0-9]{12}:u$/);
    expect(thumbs?.negative_button.value).toMatch(/^fb:[a-z0-9]{12}:d$/);
    expect(Buffer.byteLength(thumbs?.positive_button.value ?? "")).toBeLessThanOrEqual(64);
    // Streamed natively in its thread: the stream started bare and stopped with the buttons under it.
    const [started] = h.slack.callsTo("chat.startStream");
    expect(started?.args.blocks).toBeUndefined();
    const stopped = h.slack.callsTo("chat.stopStream").at(-1);
    expect(JSON.stringify(stopped?.args.blocks)).toContain("feedback_buttons");

    // A long answer is split: only its last message has them.
    const long = Array.from(
      { length: 50 },
      (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(16)}`,
    );
    h.pipe.fake.script({ content: long.join("\n\n") });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> long please` });
    await sendEvent(h.events[0] as string, SLACK_SECRET, mention);
    const parts = await until(() => {
      const shown = botMessagesIn(h.slack, mention.ts as string);
      return shown.some((m) => m.text.includes("Paragraph 49")) &&
        thumbsOf(h.slack, shown.at(-1)?.ts as string)
        ? shown
        : undefined;
    });
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.map((m) => thumbsOf(h.slack, m.ts as string) !== undefined)).toEqual([
      ...parts.slice(1).map(() => false),
      true,
    ]);
  });

  it("records a click, replaces a changed vote, counts a redelivered click once, and keeps what was wrong", async () => {
    const metrics = new Metrics();
    const h = await start({
      pipeline: { observe: { feedback: (vote) => metrics.countFeedback(vote) } },
    });
    h.pipe.fake.script({ content: "The capital of Australia is Sydney." });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> capital of Australia?` });
    await sendEvent(h.events[0] as string, SLACK_SECRET, mention);
    const thread = mention.ts as string;
    const [answer] = await until(() => {
      const shown = botMessagesIn(h.slack, thread);
      return shown[0] && thumbsOf(h.slack, shown[0].ts as string) ? shown : undefined;
    });
    const ts = answer?.ts as string;
    const thumbs = thumbsOf(h.slack, ts) as FeedbackElement;
    const url = h.slack.responseUrl({ channel: CHANNEL, messageTs: ts, threadTs: thread });
    const address = {
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: CHANNEL,
      conversation: `${CHANNEL}:${thread}`,
    };
    const votes = async () => {
      const turns = await h.pipe.app.redis.keys(`${h.pipe.prefix}:*:feedback:*`);
      const turnId = (turns[0] ?? "").split(":feedback:")[1] as string;
      const [rating] = await h.pipe.app.store.feedback.ratings(address, [turnId]);
      return rating;
    };

    const up = clickPayload(thumbs.positive_button.value, "U0HUMAN", ts, thread, url);
    await click(h.events[0] as string, up);
    expect((await until(() => h.slack.responses[0])).body).toMatchObject({
      response_type: "ephemeral",
      text: FEEDBACK_REPLIES.up,
    });
    // Slack delivers the same click again: the ledger takes it once.
    await click(h.events[0] as string, up);
    await settle(300);
    expect(h.slack.responses).toHaveLength(1);
    expect(await feedbackCounts(metrics)).toEqual({ up: 1, down: 0 });

    // A change of mind replaces the vote, and asks once what was wrong.
    await click(
      h.events[0] as string,
      clickPayload(thumbs.negative_button.value, "U0HUMAN", ts, thread, url),
    );
    expect((await until(() => h.slack.responses[1])).body.text).toBe(FEEDBACK_REPLIES.ask);
    const rating = await votes();
    expect(rating).toMatchObject({
      // No model is named in this bot's config: the provider's own.
      model: "default",
      votes: [{ voter: "slack:U0HUMAN", vote: "down", name: "human" }],
    });
    expect(rating?.contractHash).toMatch(/^[0-9a-f]{16,}$/);
    expect(rating?.promptTokens).toBeGreaterThan(0);
    expect(await feedbackCounts(metrics)).toEqual({ up: 1, down: 1 });

    // Their next message in the thread is kept with the vote, not sent to the model.
    const requests = h.pipe.fake.requests.length;
    await sendEvent(
      h.events[0] as string,
      SLACK_SECRET,
      messageEvent({ text: "Canberra is the capital.", threadTs: thread }),
    );
    await until(() =>
      botMessagesIn(h.slack, thread).some((m) => m.text.includes("kept that")) ? true : undefined,
    );
    await settle(300);
    expect(h.pipe.fake.requests).toHaveLength(requests);
    expect((await votes())?.votes[0]?.why).toBe("Canberra is the capital.");

    // Another person's vote stands beside it; the same button again changes nothing.
    await click(
      h.events[0] as string,
      clickPayload(thumbs.positive_button.value, "U0ADMIN", ts, thread, url),
    );
    await until(() => h.slack.responses[2]);
    await click(
      h.events[0] as string,
      clickPayload(thumbs.positive_button.value, "U0ADMIN", ts, thread, url),
    );
    expect((await until(() => h.slack.responses[3])).body.text).toBe(FEEDBACK_REPLIES.same("up"));
    expect((await votes())?.votes.map((v) => [v.voter, v.vote])).toEqual([
      ["slack:U0HUMAN", "down"],
      ["slack:U0ADMIN", "up"],
    ]);
    expect(await feedbackCounts(metrics)).toEqual({ up: 2, down: 1 });
  });

  it("falls back to plain buttons where Slack refuses its feedback block, and posts the answer once", async () => {
    const h = await start({ pipeline: { streamEditMs: 0 } });
    h.slack.failNext("chat.postMessage", "invalid_blocks");
    h.pipe.fake.script({ content: "An answer." }, { content: "Another." });
    const first = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> one` });
    await sendEvent(h.events[0] as string, SLACK_SECRET, first);
    const [answer] = await until(() => {
      const shown = botMessagesIn(h.slack, first.ts as string);
      return shown.length ? shown : undefined;
    });
    expect(botMessagesIn(h.slack, first.ts as string)).toHaveLength(1);
    const actions = (answer?.blocks ?? []).find(
      (b) => (b as { type: string }).type === "actions",
    ) as { elements: { text: { text: string }; value: string }[] } | undefined;
    expect(actions?.elements.map((e) => e.text.text)).toEqual(["👍", "👎"]);
    expect(actions?.elements[0]?.value).toMatch(/^fb:[a-z0-9]{12}:u$/);
  });

  it("answers a click on an answer whose record expired with a clear note", async () => {
    const h = await start();
    const url = h.slack.responseUrl({ channel: CHANNEL, messageTs: "1.2", threadTs: "1.1" });
    await click(
      h.events[0] as string,
      clickPayload("fb:k3x9q2m7p1ab:u", "U0HUMAN", "1.2", "1.1", url),
    );
    expect((await until(() => h.slack.responses[0])).body.text).toBe(FEEDBACK_REPLIES.expired);
  });
});
