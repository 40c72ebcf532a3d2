import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY } from "../../src/core/approvals/approval.ts";
import { requestText } from "../../src/core/approvals/request.ts";
import type { SlackChannel } from "../../src/platforms/slack/channel.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  sendEvent,
  sendSigned,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { adopt, slackFixtures } from "../fakes/slack-fixtures.ts";
import {
  approvalControls,
  deployRuns,
  deployTool,
  parkedWait,
  parkRequest,
} from "../support/approvals.ts";
import { until } from "../support/channels.ts";
import { connectRedis, uniquePrefix } from "../support/redis.ts";
import { SLACK_SECRET, settle, useSlackHarness, visibleIn } from "../support/slack-harness.ts";

const start = useSlackHarness();

const CHANNEL = "C0GENERAL";
const THREAD = "1700000000.000100";
const address = {
  platform: "slack",
  workspace: FAKE_SLACK.teamId,
  channel: CHANNEL,
  conversation: `${CHANNEL}:${THREAD}`,
};
const target = { ...address, thread: THREAD };
const USERS = {
  U0HUMAN: { name: "human", real_name: "Hugo Human", display_name: "Hugo Human" },
  U0ADMIN: { name: "admin", real_name: "Ada Admin", display_name: "Ada Admin", is_admin: true },
  U0GUEST: { name: "guest", real_name: "Gus Guest", display_name: "Gus Guest" },
};
const ARGS = '{"channel":"#ops","text":"<!channel> deploy at <@U0ADMIN> now"}';

/**
 * A click as Slack sends it: bolt-python's block_actions scenario body
 * (test/fixtures/slack/interactive/block-actions.json), pointed at one of
 * our buttons on our message, clicked by `user`.
 */
function clickPayload(
  button: { action_id: string; value: string },
  user: string,
  messageTs: string,
  responseUrl: string,
  triggerId = `${Date.now()}.${Math.floor(Math.random() * 1e9)}.0a1b2c`,
) {
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
    thread_ts: THREAD,
  };
  payload.trigger_id = triggerId;
  payload.response_url = responseUrl;
  payload.actions = [
    {
      ...payload.actions[0],
      action_id: button.action_id,
      value: button.value,
      block_id: "controls",
      action_ts: `${(Date.now() / 1000).toFixed(6)}`,
    },
  ];
  return payload;
}

async function click(url: string, payload: unknown) {
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return sendSigned(url, SLACK_SECRET, form, "application/x-www-form-urlencoded", {});
}

/** A request parked for `send_message`, posted in the thread with its buttons. */
async function postedRequest(h: Awaited<ReturnType<typeof start>>) {
  const parked = await parkRequest(
    h.pipe.app,
    address,
    { tool: "send_message", arguments: ARGS },
    { user: "U0HUMAN", name: "Hugo Human" },
  );
  const outbound = (h.channels[0] as SlackChannel).outbound;
  const text = requestText(parked.wait, DEFAULT_APPROVAL_POLICY);
  const options = { idempotencyKey: `request:${parked.id}`, controls: approvalControls(parked.id) };
  const ts = await outbound.post(target, text, options);
  return { ...parked, ts, text, outbound, options };
}

function buttonsOf(h: Awaited<ReturnType<typeof start>>, ts: string) {
  const message = h.slack.messages.find((m) => m.ts === ts);
  const actions = (message?.blocks ?? []).find((b) => (b as { type: string }).type === "actions") as
    | { elements: { action_id: string; value: string; text: { text: string } }[] }
    | undefined;
  return actions?.elements ?? [];
}

describe("Slack approval requests", () => {
  it("show Block Kit buttons, post once however often delivered, and lose their buttons when edited", async () => {
    const h = await start({ pipeline: { worker: false }, users: USERS });
    const request = await postedRequest(h);
    expect(buttonsOf(h, request.ts).map((b) => [b.text.text, b.value])).toEqual([
      ["Approve", `ap:${request.id}:a`],
      ["Approve for this conversation", `ap:${request.id}:c`],
      ["Deny", `ap:${request.id}:d`],
      ["Show arguments", `ap:${request.id}:s`],
    ]);
    const message = h.slack.messages.find((m) => m.ts === request.ts);
    // The model's arguments cannot page the channel or ping anyone.
    expect(JSON.stringify(message)).not.toMatch(/<!channel>|<@U0ADMIN>/);
    expect(message?.thread_ts).toBe(THREAD);

    // A resumed worker delivering the request again finds it: one message.
    const again = await request.outbound.post(target, request.text, {
      ...request.options,
      mayExist: true,
    });
    expect(again).toBe(request.ts);
    expect(h.slack.callsTo("chat.postMessage")).toHaveLength(1);

    await request.outbound.edit(target, request.ts, "Approved by Hugo Human: send_message.");
    expect(h.slack.messages.find((m) => m.ts === request.ts)).toMatchObject({
      text: "Approved by Hugo Human: send_message.",
      blocks: [],
    });
  });

  it("take the requester's click, and tell only them; a replayed click is answered once", async () => {
    const h = await start({ pipeline: { worker: false }, users: USERS });
    const request = await postedRequest(h);
    const [approve] = buttonsOf(h, request.ts);
    const url = h.slack.responseUrl({ channel: CHANNEL, messageTs: request.ts, threadTs: THREAD });
    const payload = clickPayload(approve as never, "U0HUMAN", request.ts, url);
    expect((await click(h.events[0] as string, payload)).status).toBe(200);
    const answer = await until(() => h.slack.responses[0]);
    expect(answer.body).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
      text: "Approved. The bot goes on.",
    });
    const { decision } = await h.pipe.app.store.approvals.read(address, request.id);
    expect(decision).toMatchObject({
      verdict: "approved",
      by: { user: "slack:U0HUMAN", name: "Hugo Human" },
    });

    // Slack delivers the same click again (same trigger_id): nothing more is said or decided.
    expect((await click(h.events[0] as string, payload)).status).toBe(200);
    await settle(300);
    expect(h.slack.responses).toHaveLength(1);
    // The request message is the worker's to edit, never the click's.
    expect(h.slack.callsTo("chat.update")).toHaveLength(0);
  });

  it("refuse someone who may not decide, privately, and tell a second clicker who decided first", async () => {
    const h = await start({ pipeline: { worker: false }, users: USERS });
    const request = await postedRequest(h);
    const [, , deny] = buttonsOf(h, request.ts);
    const url = h.slack.responseUrl({ channel: CHANNEL, messageTs: request.ts, threadTs: THREAD });
    await click(h.events[0] as string, clickPayload(deny as never, "U0GUEST", request.ts, url));
    const refused = await until(() => h.slack.responses[0]);
    expect(refused.body).toMatchObject({
      response_type: "ephemeral",
      text: "Only Hugo Human (who asked), admins or the bot's owners can decide this request.",
    });
    expect((await h.pipe.app.store.approvals.read(address, request.id)).decision).toBeUndefined();

    await click(h.events[0] as string, clickPayload(deny as never, "U0ADMIN", request.ts, url));
    expect((await until(() => h.slack.responses[1])).body.text).toBe(
      "Denied. The bot goes on without it.",
    );
    await click(h.events[0] as string, clickPayload(deny as never, "U0HUMAN", request.ts, url));
    expect((await until(() => h.slack.responses[2])).body.text).toBe(
      "Ada Admin already denied this.",
    );
    expect((await h.pipe.app.store.approvals.read(address, request.id)).decision).toMatchObject({
      verdict: "denied",
      by: { user: "slack:U0ADMIN" },
    });
  });

  it("show the full arguments to the clicker alone, and answer a foreign value without deciding", async () => {
    const h = await start({ pipeline: { worker: false }, users: USERS });
    const request = await postedRequest(h);
    const show = buttonsOf(h, request.ts)[3];
    const url = h.slack.responseUrl({ channel: CHANNEL, messageTs: request.ts, threadTs: THREAD });
    await click(h.events[0] as string, clickPayload(show as never, "U0GUEST", request.ts, url));
    const details = (await until(() => h.slack.responses[0])).body;
    expect(details.response_type).toBe("ephemeral");
    expect(details.text).toContain("send_message:");
    expect(details.text).toContain('"channel": "#ops"');
    expect(details.text).not.toMatch(/<!channel>|<@U0ADMIN>/);

    const forged = { action_id: "control:0", value: "ap:../../etc:a" };
    await click(h.events[0] as string, clickPayload(forged, "U0HUMAN", request.ts, url));
    expect((await until(() => h.slack.responses[1])).body.text).toMatch(
      /^That button is not an approval request I can read/,
    );
    expect((await h.pipe.app.store.approvals.read(address, request.id)).decision).toBeUndefined();
  });

  it("take a click over Socket Mode the same way, acked at once", async () => {
    const h = await start({ mode: "socket", pipeline: { worker: false }, users: USERS });
    const request = await postedRequest(h);
    const [approve] = buttonsOf(h, request.ts);
    const url = h.slack.responseUrl({ channel: CHANNEL, messageTs: request.ts, threadTs: THREAD });
    const ack = await h.socket?.send(
      "interactive",
      clickPayload(approve as never, "U0HUMAN", request.ts, url),
    );
    expect(ack).toBeDefined();
    expect((await until(() => h.slack.responses[0])).body).toMatchObject({
      response_type: "ephemeral",
      text: "Approved. The bot goes on.",
    });
    expect((await h.pipe.app.store.approvals.read(address, request.id)).decision?.verdict).toBe(
      "approved",
    );
  });

  it("take /approve as a slash command, answered privately", async () => {
    const h = await start({ pipeline: { worker: false }, users: USERS });
    const request = await postedRequest(h);
    const reply = await sendSlashCommand(h.events[0] as string, SLACK_SECRET, {
      command: "/approve",
      text: `${request.id} conversation`,
      userId: "U0HUMAN",
      channelId: CHANNEL,
    });
    expect(reply.body).toEqual({
      response_type: "ephemeral",
      text: "Approved for this conversation. The bot goes on.",
    });
    expect((await h.pipe.app.store.approvals.read(address, request.id)).decision).toMatchObject({
      verdict: "approved_conversation",
      by: { user: "slack:U0HUMAN", name: "Hugo Human" },
    });

    // The manifests' one registered command takes it too.
    const second = await postedRequest(h);
    const denied = await sendSlashCommand(h.events[0] as string, SLACK_SECRET, {
      command: "/switchyard",
      text: `deny ${second.id}`,
      userId: "U0HUMAN",
      channelId: CHANNEL,
    });
    expect(denied.body).toEqual({
      response_type: "ephemeral",
      text: "Denied. The bot goes on without it.",
    });
  });
});

interface AskingOptions {
  readonly timeoutMs?: number;
  readonly answer?: string;
}

/** Pipeline options for a request that waits `timeoutMs` (the default policy's approvers), or none. */
function waitingFor(timeoutMs: number | undefined) {
  if (timeoutMs === undefined) return {};
  return {
    approvals: { policy: () => ({ ...DEFAULT_APPROVAL_POLICY, timeoutMs }) },
  };
}

describe("a Slack turn that calls a tool under ask", () => {
  const counter = connectRedis();
  afterAll(() => counter.disconnect());

  /** A turn parked on its request; `timeoutMs` shortens how long the request waits, `answer` is the model's reply after the decision. */
  async function startAsking({ timeoutMs, answer = "Deployed to prod." }: AskingOptions = {}) {
    const prefix = uniquePrefix("slack-ask");
    const deploy = deployTool(counter, prefix);
    const h = await start({
      users: USERS,
      tools: [deploy],
      pipeline: { prefix, ...waitingFor(timeoutMs) },
    });
    h.pipe.fake.script(
      { toolCalls: [{ id: "call_deploy", name: "deploy", arguments: { env: "prod" } }] },
      { content: answer },
    );
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> deploy prod` });
    const thread = mention.ts as string;
    await sendEvent(h.events[0] as string, SLACK_SECRET, mention, { eventId: `Ev${thread}` });
    const where = { ...address, conversation: `${CHANNEL}:${thread}` };
    const wait = await parkedWait(h.pipe.app.redis, h.pipe.app.store, where);
    const url = h.slack.responseUrl({
      channel: CHANNEL,
      messageTs: wait.requestRef,
      threadTs: thread,
    });
    // The buttons as posted: a click on a message whose buttons went stays possible in a stale client.
    const buttons = buttonsOf(h, wait.requestRef);
    const press = (index: number, user: string, triggerId?: string) =>
      clickPayload(buttons[index] as never, user, wait.requestRef, url, triggerId);
    return { h, prefix, thread, wait, where, press };
  }

  it("asks with buttons; a stranger's click changes nothing; the requester's approval runs the tool once and the answer follows", async () => {
    const { h, prefix, thread, wait, press } = await startAsking();
    const request = h.slack.messages.find((m) => m.ts === wait.requestRef);
    expect(request?.thread_ts).toBe(thread);
    expect(request?.text).toContain("Approval needed: the bot wants to run deploy.");
    expect(buttonsOf(h, wait.requestRef).map((b) => b.text.text)).toEqual([
      "Approve",
      "Approve for this conversation",
      "Deny",
      "Show arguments",
    ]);

    await click(h.events[0] as string, press(0, "U0GUEST"));
    expect((await until(() => h.slack.responses[0])).body).toMatchObject({
      response_type: "ephemeral",
      text: "Only Hugo Human (who asked), admins or the bot's owners can decide this request.",
    });
    expect(await deployRuns(counter, prefix)).toBe(0);

    const approve = press(0, "U0HUMAN", "7318204456.5517.approve-once");
    await click(h.events[0] as string, approve);
    expect((await until(() => h.slack.responses[1])).body.text).toBe("Approved. The bot goes on.");
    await until(() =>
      visibleIn(h.slack, thread).includes("Deployed to prod.") ? true : undefined,
    );
    expect(await deployRuns(counter, prefix)).toBe(1);
    const edited = h.slack.messages.find((m) => m.ts === wait.requestRef);
    expect(edited).toMatchObject({ text: "Approved by Hugo Human: deploy.", blocks: [] });

    // The same click delivered again, then a second click: one more answer, and nothing runs again.
    await click(h.events[0] as string, approve);
    await click(h.events[0] as string, press(2, "U0HUMAN"));
    expect((await until(() => h.slack.responses[2])).body.text).toBe(
      "Hugo Human already approved this.",
    );
    await settle(300);
    expect(h.slack.responses).toHaveLength(3);
    expect(await deployRuns(counter, prefix)).toBe(1);
    expect(visibleIn(h.slack, thread).filter((t) => t === "Deployed to prod.")).toHaveLength(1);
  });

  it("tells the model nobody approved in time, edits the request once to say it expired, and answers a late click without running the tool", async () => {
    const answer = "Nobody approved in time, so I did not deploy.";
    const { h, prefix, thread, wait, press } = await startAsking({ timeoutMs: 1_500, answer });
    await until(() => (visibleIn(h.slack, thread).includes(answer) ? true : undefined));
    const results = (h.pipe.fake.requests[1]?.body.messages ?? []).filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      "not run: nobody approved it within 2 s.",
    ]);
    expect(h.slack.messages.find((m) => m.ts === wait.requestRef)).toMatchObject({
      text: "Expired: nobody decided within 2 s, so deploy did not run.",
      blocks: [],
    });
    expect(
      h.slack.callsTo("chat.update").filter((c) => c.args.ts === wait.requestRef),
    ).toHaveLength(1);

    // The requester clicks Approve on a client that still shows the buttons.
    await click(h.events[0] as string, press(0, "U0HUMAN"));
    expect((await until(() => h.slack.responses[0])).body).toMatchObject({
      response_type: "ephemeral",
      text: "This request expired: nobody decided in time.",
    });
    await settle(300);
    expect(await deployRuns(counter, prefix)).toBe(0);
    expect(visibleIn(h.slack, thread).filter((t) => t === answer)).toHaveLength(1);
  });

  it("gives the model who denied the call, and the turn answers", async () => {
    const { h, prefix, thread, wait, press } = await startAsking();
    h.pipe.fake.script({ content: "Ada said no, so I did not deploy." });
    await click(h.events[0] as string, press(2, "U0ADMIN"));
    expect((await until(() => h.slack.responses[0])).body.text).toBe(
      "Denied. The bot goes on without it.",
    );
    await until(() =>
      visibleIn(h.slack, thread).some((t) => t.startsWith("Deployed") || t.startsWith("Ada"))
        ? true
        : undefined,
    );
    const results = (h.pipe.fake.requests[1]?.body.messages ?? []).filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      expect.stringMatching(/^not run: Ada Admin denied it\./),
    ]);
    expect(await deployRuns(counter, prefix)).toBe(0);
    expect(h.slack.messages.find((m) => m.ts === wait.requestRef)).toMatchObject({
      text: "Denied by Ada Admin: deploy did not run.",
      blocks: [],
    });
  });
});
