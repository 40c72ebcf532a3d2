import { describe, expect, it } from "vitest";
import { INBOUND_TEXT_LIMIT, tooLongReply } from "../../src/core/conversation.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  settle,
  useSlackHarness,
  visibleFlat,
  visibleIn,
} from "../support/slack-harness.ts";

const start = useSlackHarness();

const LENGTH = 200_000;

describe("Slack input over the text limit", () => {
  it("answers a 200,000-character mention once, in its thread, and queues nothing, retries included", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const huge = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${"x".repeat(LENGTH)}` });
    const thread = huge.ts as string;
    const first = await sendEvent(url, SLACK_SECRET, huge, { eventId: "EvHuge" });
    expect(first.status).toBe(200);
    const retry = await sendEvent(url, SLACK_SECRET, huge, { eventId: "EvHuge", retryNum: 1 });
    expect(retry.status).toBe(200);
    await until(() => (visibleIn(h.slack, thread).length ? true : undefined));
    await settle();
    expect(visibleIn(h.slack, thread)).toEqual([tooLongReply(LENGTH)]);
    expect(h.pipe.fake.requests).toHaveLength(0);
    expect(await h.pipe.app.queue.queues[0]?.getJobCounts()).toMatchObject({
      waiting: 0,
      active: 0,
    });
  });

  it("answers a typed command over the limit in a DM once, without running it", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const text = `!tools off ${"y".repeat(INBOUND_TEXT_LIMIT)}`;
    const typed = messageEvent({ text, channel: "D0HUMAN", channelType: "im" });
    expect((await sendEvent(url, SLACK_SECRET, typed, { eventId: "EvLongCmd" })).status).toBe(200);
    await sendEvent(url, SLACK_SECRET, typed, { eventId: "EvLongCmd", retryNum: 1 });
    await until(() => (visibleFlat(h.slack, "D0HUMAN").length ? true : undefined));
    await settle();
    expect(visibleFlat(h.slack, "D0HUMAN")).toEqual([tooLongReply(text.length)]);
  });

  it("answers a slash command whose text is over the limit with the same reply", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const text = `off ${"z".repeat(INBOUND_TEXT_LIMIT)}`;
    const answer = await sendSlashCommand(url, SLACK_SECRET, { text });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      response_type: "ephemeral",
      text: tooLongReply(`/tools ${text}`.length),
    });
  });

  it("acks a mention over the limit over Socket Mode and answers it once", async () => {
    const h = await start({ mode: "socket" });
    const socket = h.socket as NonNullable<SlackHarness["socket"]>;
    const huge = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${"x".repeat(LENGTH)}` });
    const thread = huge.ts as string;
    expect((await socket.sendEvent(huge, { eventId: "EvSockHuge" })).payload).toEqual({});
    await socket.sendEvent(huge, { eventId: "EvSockHuge", retryAttempt: 1 });
    await until(() => (visibleIn(h.slack, thread).length ? true : undefined));
    await settle();
    expect(visibleIn(h.slack, thread)).toEqual([tooLongReply(LENGTH)]);
    expect(h.pipe.fake.requests).toHaveLength(0);
  });
});
