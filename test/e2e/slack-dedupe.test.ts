import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  blockActionPayload,
  messageEvent,
  sendBlockAction,
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

const mention = (text: string) => appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${text}` });

/** The conversation-scope decisions stored for a thread (or a channel's own conversation). */
async function decisions(h: SlackHarness, conversation: string) {
  const { intent } = await h.pipe.app.store.intent.read({
    platform: "slack",
    workspace: FAKE_SLACK.teamId,
    channel: "C0GENERAL",
    conversation,
  });
  return intent.decisions;
}

/** Mentions the bot so it joins a thread, and waits for its answer there. */
async function joinThread(h: SlackHarness, url: string): Promise<string> {
  h.pipe.fake.script({ content: "Hello." });
  const m = mention("start");
  await sendEvent(url, SLACK_SECRET, m);
  const thread = m.ts as string;
  await until(() => (visibleIn(h.slack, thread).length === 1 ? true : undefined));
  return thread;
}

describe("Slack commands under Events API retries", () => {
  it("runs and answers `!tools off lookup` typed in a thread once, though Slack delivers it with retry 0..3", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const thread = await joinThread(h, url);
    const typed = messageEvent({ text: "!tools off lookup", threadTs: thread });
    for (const retryNum of [undefined, 1, 2, 3]) {
      const sent = await sendEvent(url, SLACK_SECRET, typed, {
        eventId: "EvTyped1",
        ...(retryNum !== undefined ? { retryNum } : {}),
      });
      expect(sent.status).toBe(200);
    }
    await until(() => (visibleIn(h.slack, thread).length >= 2 ? true : undefined));
    await settle();
    const answers = visibleIn(h.slack, thread).slice(1);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(/lookup is now off/);
    expect(await decisions(h, `C0GENERAL:${thread}`)).toEqual({ lookup: false });
    expect(h.pipe.fake.requests).toHaveLength(1);
  });

  it("answers `!tools` typed in a DM once when Slack redelivers it", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const typed = messageEvent({ text: "!tools", channel: "D0HUMAN", channelType: "im" });
    await sendEvent(url, SLACK_SECRET, typed, { eventId: "EvDm1" });
    await sendEvent(url, SLACK_SECRET, typed, { eventId: "EvDm1", retryNum: 1 });
    await until(() => (visibleFlat(h.slack, "D0HUMAN").length ? true : undefined));
    await settle();
    expect(visibleFlat(h.slack, "D0HUMAN")).toHaveLength(1);
    expect(visibleFlat(h.slack, "D0HUMAN")[0]).toMatch(/tools available/);
  });

  it("runs a slash command once when the same request (same trigger_id) arrives again", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const command = { text: "off lookup", userId: "U0HUMAN", triggerId: "1337.42.abcdef" };
    const first = await sendSlashCommand(url, SLACK_SECRET, command);
    const again = await sendSlashCommand(url, SLACK_SECRET, command);
    expect(first.status).toBe(200);
    expect(JSON.stringify(first.body)).toContain("lookup is now off");
    // The replay is acknowledged and answers nothing: the person saw the first answer.
    expect(again.status).toBe(200);
    expect(again.body).toBe("");
    // A new invocation (a new trigger_id) is a new command.
    const fresh = await sendSlashCommand(url, SLACK_SECRET, { ...command, triggerId: "1337.43.f" });
    expect(JSON.stringify(fresh.body)).toContain("lookup");
  });

  it("applies a button click once when the same block_actions payload arrives twice", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const listed = await sendSlashCommand(url, SLACK_SECRET, { userId: "U0ADMIN" });
    const blocks = listed.body.blocks as { accessory?: { action_id: string; value: string } }[];
    const button = blocks.map((b) => b.accessory).find((a) => a?.value?.startsWith("lookup|"));
    const click = {
      actionId: button?.action_id as string,
      value: button?.value as string,
      userId: "U0ADMIN",
      messageTs: "1700000000.000900",
      triggerId: "2000.1.click",
      responseUrl: h.slack.responseUrl({ channel: "C0GENERAL", messageTs: "1700000000.000900" }),
    };
    expect((await sendBlockAction(url, SLACK_SECRET, click)).status).toBe(200);
    expect((await sendBlockAction(url, SLACK_SECRET, click)).status).toBe(200);
    await until(() => (h.slack.responses.length ? true : undefined));
    await settle();
    expect(h.slack.responses).toHaveLength(1);
    expect(JSON.stringify(h.slack.responses[0]?.body)).toContain("1 of 2 tools available");
  });

  it("answers a typed command once when two ingress processes both receive it", async () => {
    const h = await start({ ingress: 2 });
    const [one, two] = h.events as [string, string];
    const thread = await joinThread(h, one);
    const typed = messageEvent({ text: "!tools off lookup", threadTs: thread });
    const sent = await Promise.all([
      sendEvent(one, SLACK_SECRET, typed, { eventId: "EvTwo1" }),
      sendEvent(two, SLACK_SECRET, typed, { eventId: "EvTwo1", retryNum: 1 }),
    ]);
    await until(() => (visibleIn(h.slack, thread).length >= 2 ? true : undefined));
    await settle();
    expect(visibleIn(h.slack, thread).slice(1)).toHaveLength(1);
    // One delivery took it; one that overlapped it is refused, so Slack would deliver it again.
    expect(sent.map((r) => r.status).sort()).toEqual(expect.arrayContaining([200]));
    for (const r of sent) expect([200, 503]).toContain(r.status);
    // The redelivery Slack makes later finds it taken and answers nothing more.
    const later = await sendEvent(two, SLACK_SECRET, typed, { eventId: "EvTwo1", retryNum: 2 });
    expect(later.status).toBe(200);
    await settle();
    expect(visibleIn(h.slack, thread).slice(1)).toHaveLength(1);
  });
});

describe("Slack commands under Socket Mode redeliveries", () => {
  it("answers a command typed in a thread once when Slack redelivers its envelope", async () => {
    const h = await start({ mode: "socket" });
    const socket = h.socket as NonNullable<SlackHarness["socket"]>;
    h.pipe.fake.script({ content: "Hello." });
    const m = mention("start");
    await socket.sendEvent(m);
    const thread = m.ts as string;
    await until(() => (visibleIn(h.slack, thread).length === 1 ? true : undefined));
    const typed = messageEvent({ text: "!tools off lookup", threadTs: thread });
    for (const retryAttempt of [0, 1, 2, 3]) {
      const ack = await socket.sendEvent(typed, { eventId: "EvSockTyped", retryAttempt });
      expect(ack.payload).toEqual({});
    }
    await until(() => (visibleIn(h.slack, thread).length >= 2 ? true : undefined));
    await settle();
    expect(visibleIn(h.slack, thread).slice(1)).toHaveLength(1);
    expect(await decisions(h, `C0GENERAL:${thread}`)).toEqual({ lookup: false });
  });

  it("answers a slash command once when its envelope is delivered again", async () => {
    const h = await start({ mode: "socket" });
    const socket = h.socket as NonNullable<SlackHarness["socket"]>;
    const command = { text: "off lookup", userId: "U0HUMAN", triggerId: "3000.1.sock" };
    const first = await socket.sendSlashCommand(command);
    const again = await socket.sendSlashCommand(command);
    expect(JSON.stringify(first.payload)).toContain("lookup is now off");
    expect(again.payload).toEqual({});
  });

  it("applies a button click once when its interactive envelope is delivered again", async () => {
    const h = await start({ mode: "socket" });
    const socket = h.socket as NonNullable<SlackHarness["socket"]>;
    const listed = await socket.sendSlashCommand({ userId: "U0ADMIN" });
    const blocks = listed.payload.blocks as { accessory?: { action_id: string; value: string } }[];
    const button = blocks.map((b) => b.accessory).find((a) => a?.value?.startsWith("lookup|"));
    const payload = blockActionPayload({
      actionId: button?.action_id as string,
      value: button?.value as string,
      userId: "U0ADMIN",
      messageTs: "1700000000.000901",
      triggerId: "3000.2.click",
      responseUrl: h.slack.responseUrl({ channel: "C0GENERAL", messageTs: "1700000000.000901" }),
    });
    await socket.send("interactive", payload);
    await socket.send("interactive", payload);
    await until(() => (h.slack.responses.length ? true : undefined));
    await settle();
    expect(h.slack.responses).toHaveLength(1);
  });

  it("answers a typed command once when two ingress processes each get its envelope", async () => {
    const h = await start({ mode: "socket", ingress: 2 });
    const socket = h.socket as NonNullable<SlackHarness["socket"]>;
    expect(socket.connections).toBe(2);
    const typed = messageEvent({ text: "!tools", channel: "D0HUMAN", channelType: "im" });
    await Promise.allSettled([
      socket.sendEvent(typed, { eventId: "EvSockTwo", connection: 0 }),
      socket.sendEvent(typed, { eventId: "EvSockTwo", connection: 1, retryAttempt: 1 }),
    ]);
    // Slack delivers an envelope nobody acked once more; whoever gets it finds it taken.
    await socket.sendEvent(typed, { eventId: "EvSockTwo", connection: 1, retryAttempt: 2 });
    await until(() => (visibleFlat(h.slack, "D0HUMAN").length ? true : undefined));
    await settle();
    expect(visibleFlat(h.slack, "D0HUMAN")).toHaveLength(1);
  });
});
