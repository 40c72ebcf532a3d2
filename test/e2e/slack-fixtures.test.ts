import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sendSigned, sendUrlVerification } from "../../src/testing/fakes/slack-requests.ts";
import { adopt, formFields, type SlackFixture, slackFixtures } from "../fakes/slack-fixtures.ts";
import type { FakeSocketMode } from "../fakes/slack-socket.ts";
import { until } from "../support/channels.ts";
import { slackish, socketFrame } from "../support/slack-arbitraries.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  settle,
  startSlackHarness,
  visibleIn,
} from "../support/slack-harness.ts";

/**
 * Payloads in the shapes of Slack's docs and SDK test suites
 * (test/fixtures/slack, values our own), replayed signed through the real
 * receivers the channel starts, against the fake Web API: each is answered
 * 2xx and does what its `effect` says, once, however often it arrives; and
 * no body at all ends the process or gets a 5xx.
 */
const events = slackFixtures("events");
const commands = slackFixtures("commands");
const interactive = slackFixtures("interactive");
const envelopes = slackFixtures("socket");
const queued = events.filter((f) => f.effect === "queued");
const others = events.filter((f) => f.effect !== "queued");

const json = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  sendSigned(url, SLACK_SECRET, JSON.stringify(body), "application/json", {}, headers);
const form = (url: string, body: string) =>
  sendSigned(url, SLACK_SECRET, body, "application/x-www-form-urlencoded", {});
const interaction = (url: string, payload: unknown) =>
  form(url, new URLSearchParams({ payload: JSON.stringify(payload) }).toString());

/** What the bot has done so far: turns, posts, response_url answers. */
function activity(h: SlackHarness) {
  return {
    turns: h.pipe.fake.requests.length,
    posts: h.slack.callsTo("chat.postMessage").length,
    responses: h.slack.responses.length,
  };
}

/** Where a queued message's answer goes: its thread in its channel. */
function threadOf(f: SlackFixture): { channel: string; thread: string } {
  const event = adopt(f.body, f.bot).event;
  return { channel: event.channel, thread: event.thread_ts ?? event.ts };
}

async function expectAnsweredOnce(h: SlackHarness, f: SlackFixture) {
  const { channel, thread } = threadOf(f);
  const answers = () => visibleIn(h.slack, thread);
  await until(() => (answers().length ? true : undefined));
  await settle();
  expect(answers(), f.name).toEqual(["An answer."]);
  expect(h.slack.messages.find((m) => m.thread_ts === thread)?.channel).toBe(channel);
  expect(h.pipe.fake.requests).toHaveLength(1);
}

describe("Slack's payloads over the Events API", () => {
  let h: SlackHarness;
  let url: string;
  beforeAll(async () => {
    h = await startSlackHarness();
    url = h.events[0] as string;
  });
  afterAll(() => h.close());

  it.each(others)("$name: $effect", async (f) => {
    const before = activity(h);
    const body = adopt(f.body, f.bot);
    const first = await json(url, body);
    const retry = await json(url, body, {
      "x-slack-retry-num": "1",
      "x-slack-retry-reason": "http_timeout",
    });
    expect([first.status, retry.status]).toEqual([200, 200]);
    if (f.effect === "challenge") expect(first.body).toEqual({ challenge: body.challenge });
    if (f.effect === "rate-limited") {
      expect(h.warnings.map((w) => w.message).join("\n")).toMatch(/rate-limiting/);
    }
    await settle(150);
    expect(activity(h), f.name).toEqual(before);
  });

  it.each(commands)("$name: $effect", async (f) => {
    const answer = await form(url, f.form as string);
    expect(answer.status).toBe(200);
    if (f.effect === "unknown-command") {
      const name = formFields(f.form as string).command;
      expect(answer.body).toMatchObject({ response_type: "ephemeral" });
      expect(answer.body.text).toContain(`I don't know ${name}`);
    }
  });

  it("runs /tools sent in the shape of bolt-python's slash command payload", async () => {
    const fields = formFields(
      commands.find((f) => f.name === "commands/hello-world")?.form as string,
    );
    const answer = await form(
      url,
      new URLSearchParams({ ...fields, command: "/tools", text: "" }).toString(),
    );
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain("tools available");
  });

  it.each(interactive)("$name: $effect", async (f) => {
    const before = activity(h);
    const answer = await interaction(url, f.payload);
    expect(answer.status).toBe(200);
    if (f.effect === "no-options") expect(answer.body).toEqual({ options: [] });
    else expect(answer.body).toBe("");
    await settle(100);
    expect(activity(h)).toEqual(before);
  });

  it("never answers 5xx and never falls over, whatever signed JSON arrives", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), slackish), fc.boolean(), async (body, asForm) => {
        const sent = asForm ? await interaction(url, body) : await json(url, body);
        expect(sent.status).toBeGreaterThanOrEqual(200);
        expect(sent.status).toBeLessThan(300);
      }),
      { numRuns: 150 },
    );
    const alive = await sendUrlVerification(url, SLACK_SECRET, "still-here");
    expect(alive.body).toEqual({ challenge: "still-here" });
  });

  it("refuses every body signed with the wrong secret with 401", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const sent = await sendSigned(
          url,
          "wrong-secret",
          JSON.stringify(body),
          "application/json",
          {},
        );
        expect(sent.status).toBe(401);
      }),
      { numRuns: 30 },
    );
  });
});

describe("Slack's messages for the bot, over the Events API", () => {
  let h: SlackHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each(queued)("$name: queued once, answered in its thread", async (f) => {
    h = await startSlackHarness();
    h.pipe.fake.script({ content: "An answer." }, { content: "A second answer must not happen." });
    const url = h.events[0] as string;
    const body = adopt(f.body, f.bot);
    expect((await json(url, body)).status).toBe(200);
    expect((await json(url, body, { "x-slack-retry-num": "1" })).status).toBe(200);
    await expectAnsweredOnce(h, f);
  });
});

describe("Slack's payloads over Socket Mode", () => {
  let h: SlackHarness;
  let socket: FakeSocketMode;
  beforeAll(async () => {
    h = await startSlackHarness({ mode: "socket" });
    socket = h.socket as FakeSocketMode;
  });
  afterAll(() => h.close());

  it.each(others.filter((f) => f.body.type !== "url_verification"))("$name: $effect", async (f) => {
    const before = activity(h);
    const body = adopt(f.body, f.bot);
    expect((await socket.send("events_api", body)).payload).toEqual({});
    expect((await socket.send("events_api", body, { retryAttempt: 1 })).payload).toEqual({});
    await settle(150);
    expect(activity(h), f.name).toEqual(before);
  });

  it.each(commands.filter((f) => f.effect === "unknown-command"))("$name: $effect", async (f) => {
    const fields = formFields(f.form as string);
    const ack = await socket.send("slash_commands", fields);
    expect(ack.payload.text).toContain(`I don't know ${fields.command}`);
  });

  it.each(interactive)("$name: $effect", async (f) => {
    const ack = await socket.send("interactive", f.payload);
    expect(ack.payload).toEqual(f.effect === "no-options" ? { options: [] } : {});
  });

  it.each(envelopes)("$name (the envelope as Slack sends it): $effect", async (f) => {
    const envelope = adopt(f.envelope, f.bot);
    socket.sendText(JSON.stringify(envelope));
    const ack = await until(() => socket.acks.find((a) => a.envelopeId === envelope.envelope_id));
    if (f.effect === "unknown-command") expect(ack.payload.text).toMatch(/I don't know/);
    else expect(ack.payload).toEqual({});
  });

  it("keeps its one connection and keeps answering, whatever frames arrive", async () => {
    const before = socket.connections;
    await fc.assert(
      fc.asyncProperty(socketFrame, async (frame) => {
        socket.sendText(frame);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }),
      { numRuns: 150 },
    );
    await settle();
    expect(socket.connections).toBe(before);
    const answer = await socket.sendSlashCommand({ command: "/tools" });
    expect(JSON.stringify(answer.payload)).toContain("tools available");
  });

  it("acks, and drops, envelopes the Socket Mode client cannot read", async () => {
    const broken = [
      { envelope_id: "env-no-event", type: "events_api", payload: { type: "event_callback" } },
      { envelope_id: "env-close", type: "events_api", payload: { event: { type: "close" } } },
      { envelope_id: "env-unknown", type: "ws_message", payload: {} },
      { envelope_id: "env-null", type: "slash_commands", payload: null },
    ];
    for (const envelope of broken) socket.sendText(JSON.stringify(envelope));
    socket.sendText("null");
    for (const { envelope_id } of broken) {
      await until(() => socket.acks.find((a) => a.envelopeId === envelope_id));
    }
    expect(socket.connections).toBe(1);
  });
});

describe("Slack's messages for the bot, over Socket Mode", () => {
  let h: SlackHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each(queued)("$name: queued once, answered in its thread", async (f) => {
    h = await startSlackHarness({ mode: "socket" });
    h.pipe.fake.script({ content: "An answer." }, { content: "A second answer must not happen." });
    const socket = h.socket as FakeSocketMode;
    const body = adopt(f.body, f.bot);
    await socket.send("events_api", body);
    await socket.send("events_api", body, { retryAttempt: 1 });
    await expectAnsweredOnce(h, f);
  });
});
