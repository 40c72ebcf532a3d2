import type { AddressInfo } from "node:net";
import { App, LogLevel, webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
  sendUrlVerification,
  signSlackRequest,
} from "../../src/testing/fakes/slack-requests.ts";

const SIGNING_SECRET = "fake-signing-secret";
const mention = (text: string) => `<@${FAKE_SLACK.botUserId}> ${text}`;

describe("the real Bolt app against the fake Slack", () => {
  let fake: FakeSlackApi;
  let app: App;
  let eventsUrl: string;

  beforeEach(async () => {
    fake = await startFakeSlackApi();
    app = new App({
      token: FAKE_SLACK.botToken,
      signingSecret: SIGNING_SECRET,
      // With both ids given, the constructor does not call auth.test.
      botId: FAKE_SLACK.botId,
      botUserId: FAKE_SLACK.botUserId,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.url, retryConfig: { retries: 0 } },
    });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });

  afterEach(async () => {
    await app.stop();
    await fake.close();
  });

  it("starts without calling auth.test when botId and botUserId are given", async () => {
    await sendUrlVerification(eventsUrl, SIGNING_SECRET);
    expect(fake.callsTo("auth.test")).toEqual([]);
  });

  it("answers the url_verification handshake with the challenge", async () => {
    const reply = await sendUrlVerification(eventsUrl, SIGNING_SECRET, "abc123");
    expect(reply).toEqual({ status: 200, body: { challenge: "abc123" } });
  });

  it("delivers an app_mention, and say() in the thread lands as chat.postMessage", async () => {
    app.event("app_mention", async ({ event, say, setStatus }) => {
      await setStatus?.("is thinking…");
      await say({ text: `you said: ${event.text}`, thread_ts: event.ts });
    });
    const event = appMentionEvent({ text: mention("hello"), channel: "C0DEV" });

    const reply = await sendEvent(eventsUrl, SIGNING_SECRET, event, { eventId: "Ev0001" });

    expect(reply).toEqual({ status: 200, body: "" });
    const post = await fake.waitForCall("chat.postMessage");
    expect(post.token).toBe(FAKE_SLACK.botToken);
    expect(post.args).toMatchObject({
      channel: "C0DEV",
      thread_ts: event.ts,
      text: `you said: ${mention("hello")}`,
    });
    expect(post.response).toMatchObject({
      ok: true,
      channel: "C0DEV",
      message: { thread_ts: event.ts },
    });
    expect(fake.callsTo("assistant.threads.setStatus")[0]?.args).toMatchObject({
      channel_id: "C0DEV",
      thread_ts: event.ts,
      status: "is thinking…",
    });
    expect(fake.messages).toHaveLength(1);
  });

  it("refuses a bad signature with 401 and never calls the handler", async () => {
    let handled = 0;
    app.event("app_mention", async () => {
      handled += 1;
    });
    const reply = await sendEvent(
      eventsUrl,
      SIGNING_SECRET,
      appMentionEvent({ text: mention("hi") }),
      {
        badSignature: true,
      },
    );
    expect(reply.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handled).toBe(0);
  });

  it("refuses a correctly signed request with a timestamp older than five minutes", async () => {
    let handled = 0;
    app.event("app_mention", async () => {
      handled += 1;
    });
    const reply = await sendEvent(
      eventsUrl,
      SIGNING_SECRET,
      appMentionEvent({ text: mention("hi") }),
      {
        staleTimestamp: true,
      },
    );
    expect(reply.status).toBe(401);
    expect(handled).toBe(0);
  });

  it("signs the way Bolt verifies: a hand-signed raw body is accepted", async () => {
    const body = JSON.stringify({ type: "url_verification", challenge: "raw", token: "t" });
    const response = await fetch(eventsUrl, {
      method: "POST",
      headers: { "content-type": "application/json", ...signSlackRequest(body, SIGNING_SECRET) },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: "raw" });
  });

  it("hands a redelivered event to the handler again: Bolt does not dedupe retries", async () => {
    const seen: { eventId: string; retryNum: number | undefined }[] = [];
    app.event("app_mention", async ({ body, context }) => {
      seen.push({ eventId: body.event_id, retryNum: context.retryNum });
    });
    const event = appMentionEvent({ text: mention("once") });
    for (const retryNum of [undefined, 1, 2]) {
      const reply = await sendEvent(eventsUrl, SIGNING_SECRET, event, {
        eventId: "EvSAME",
        retryNum,
      });
      expect(reply.status).toBe(200);
    }
    await expect.poll(() => seen.length).toBe(3);
    expect(seen).toEqual([
      { eventId: "EvSAME", retryNum: undefined },
      { eventId: "EvSAME", retryNum: 1 },
      { eventId: "EvSAME", retryNum: 2 },
    ]);
  });

  it("delivers a thread reply as a message event with thread_ts", async () => {
    const received: Record<string, unknown>[] = [];
    app.message(async ({ message }) => {
      received.push(message as unknown as Record<string, unknown>);
    });
    const event = messageEvent({ text: "!tools", threadTs: "1690000000.000001" });
    await sendEvent(eventsUrl, SIGNING_SECRET, event);
    await expect.poll(() => received.length).toBe(1);
    expect(received[0]).toMatchObject({ text: "!tools", thread_ts: "1690000000.000001" });
  });

  it("routes /tools to app.command, and ack() text comes back in the HTTP response", async () => {
    app.command("/tools", async ({ command, ack }) => {
      await ack(`tools for ${command.user_id} in ${command.channel_id}: ${command.text}`);
    });
    const reply = await sendSlashCommand(eventsUrl, SIGNING_SECRET, {
      text: "off web_search channel",
      userId: "U0ADA",
      channelId: "C0DEV",
    });
    expect(reply).toEqual({
      status: 200,
      body: "tools for U0ADA in C0DEV: off web_search channel",
    });
  });

  it("returns an ack() object as JSON, and respond() posts to the response_url", async () => {
    app.command("/tools", async ({ ack, respond }) => {
      await ack({ response_type: "ephemeral", text: "working on it" });
      await respond({ response_type: "in_channel", text: "web_search is off in #dev" });
    });
    const reply = await sendSlashCommand(eventsUrl, SIGNING_SECRET, {
      channelId: "C0DEV",
      responseUrl: fake.responseUrl({ channel: "C0DEV" }),
    });
    expect(reply).toEqual({
      status: 200,
      body: { response_type: "ephemeral", text: "working on it" },
    });
    await expect.poll(() => fake.responses.length).toBe(1);
    expect(fake.responses[0]?.body).toEqual({
      response_type: "in_channel",
      text: "web_search is off in #dev",
    });
    expect(fake.messages[0]).toMatchObject({ channel: "C0DEV", text: "web_search is off in #dev" });
  });

  it("routes a button click to app.action, and the message updates in place", async () => {
    const posted = await app.client.chat.postMessage({
      channel: "C0DEV",
      text: "3 of 4 tools available",
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "*web_search* on" } }],
    });
    app.action("tool_toggle", async ({ ack, action, body, client }) => {
      await ack();
      if (body.type !== "block_actions" || action.type !== "button") return;
      await client.chat.update({
        channel: body.container.channel_id,
        ts: body.container.message_ts,
        text: `${action.value} switched`,
        blocks: [{ type: "section", text: { type: "mrkdwn", text: `*${action.value}* off` } }],
      });
    });

    const reply = await sendBlockAction(eventsUrl, SIGNING_SECRET, {
      actionId: "tool_toggle",
      value: "web_search",
      channelId: "C0DEV",
      messageTs: String(posted.ts),
    });

    expect(reply.status).toBe(200);
    const update = await fake.waitForCall("chat.update");
    expect(update.args).toMatchObject({ channel: "C0DEV", ts: posted.ts });
    expect(update.args.blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: "*web_search* off" } },
    ]);
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]).toMatchObject({
      text: "web_search switched",
      edited: { user: FAKE_SLACK.botUserId },
    });
  });

  it("replaces the original message through respond({ replace_original })", async () => {
    const posted = await app.client.chat.postMessage({ channel: "C0DEV", text: "before" });
    app.action("scope_pick", async ({ ack, action, respond }) => {
      await ack();
      if (action.type !== "static_select") return;
      await respond({ replace_original: true, text: `scope: ${action.selected_option.value}` });
    });
    await sendBlockAction(eventsUrl, SIGNING_SECRET, {
      actionId: "scope_pick",
      selectedOption: { value: "workspace" },
      channelId: "C0DEV",
      messageTs: String(posted.ts),
      responseUrl: fake.responseUrl({ channel: "C0DEV", messageTs: String(posted.ts) }),
    });
    await expect.poll(() => fake.messages[0]?.text).toBe("scope: workspace");
    expect(fake.messages).toHaveLength(1);
  });

  it("answers users.info with the user's admin flags, and user_not_found otherwise", async () => {
    fake.users.set("U0ADA", { name: "ada", real_name: "Ada Lovelace", is_admin: true });
    const { user } = await app.client.users.info({ user: "U0ADA" });
    expect(user).toMatchObject({
      id: "U0ADA",
      name: "ada",
      real_name: "Ada Lovelace",
      is_admin: true,
      is_owner: false,
      is_bot: false,
      profile: { display_name: "ada", real_name: "Ada Lovelace" },
    });
    await expect(app.client.users.info({ user: "U0NOBODY" })).rejects.toMatchObject({
      code: webApi.ErrorCode.PlatformError,
      data: { ok: false, error: "user_not_found" },
    });
  });
});

describe("the WebClient against the fake Slack Web API", () => {
  let fake: FakeSlackApi;

  beforeEach(async () => {
    fake = await startFakeSlackApi();
  });

  afterEach(async () => {
    await fake.close();
  });

  const client = (options: webApi.WebClientOptions = {}, token: string = FAKE_SLACK.botToken) =>
    new webApi.WebClient(token, {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
      logLevel: webApi.LogLevel.ERROR,
      ...options,
    });

  it("identifies the bot through auth.test", async () => {
    const result = await client().auth.test();
    expect(result).toMatchObject({
      ok: true,
      team_id: FAKE_SLACK.teamId,
      user_id: FAKE_SLACK.botUserId,
      bot_id: FAKE_SLACK.botId,
    });
  });

  it("refuses a token other than the bot token with invalid_auth", async () => {
    await expect(client({}, "xoxb-someone-else").auth.test()).rejects.toMatchObject({
      code: webApi.ErrorCode.PlatformError,
      data: { error: "invalid_auth" },
    });
    expect(fake.calls[0]?.token).toBe("xoxb-someone-else");
  });

  it("hands out unique, increasing message timestamps", async () => {
    const web = client();
    const tss: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { ts } = await web.chat.postMessage({ channel: "C1", text: `m${i}` });
      tss.push(String(ts));
    }
    expect(tss).toEqual(["1700000000.000100", "1700000000.000200", "1700000000.000300"]);
  });

  it("parses form bodies, with blocks sent as a JSON string, and JSON bodies alike", async () => {
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "hi" } }];
    await client().chat.postMessage({ channel: "C1", text: "hi", blocks, unfurl_links: false });
    const response = await fetch(`${fake.url}chat.postMessage`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${FAKE_SLACK.botToken}`,
        "content-type": "application/json; charset=utf-8",
      },
      body: JSON.stringify({ channel: "C1", text: "json", blocks }),
    });
    expect(await response.json()).toMatchObject({ ok: true, channel: "C1" });
    const [form, json] = fake.callsTo("chat.postMessage");
    expect(form?.contentType).toBe("application/x-www-form-urlencoded");
    expect(form?.args).toMatchObject({ blocks, unfurl_links: "false" });
    expect(json?.args).toEqual({ channel: "C1", text: "json", blocks });
  });

  it("returns a thread with conversations.replies, and refuses edits of unknown messages", async () => {
    const web = client();
    const parent = fake.addMessage({
      channel: "C1",
      user: "U0ADA",
      text: "question",
      ts: "1690000000.000001",
    });
    await web.chat.postMessage({ channel: "C1", text: "answer 1", thread_ts: parent.ts });
    await web.chat.postMessage({ channel: "C1", text: "answer 2", thread_ts: parent.ts });
    const { messages } = await web.conversations.replies({ channel: "C1", ts: parent.ts });
    expect(messages?.map((m) => m.text)).toEqual(["question", "answer 1", "answer 2"]);
    expect(messages?.[1]).toMatchObject({ parent_user_id: "U0ADA", bot_id: FAKE_SLACK.botId });
    await expect(web.chat.update({ channel: "C1", ts: "1.2", text: "x" })).rejects.toMatchObject({
      data: { error: "message_not_found" },
    });
    await expect(
      web.chat.update({ channel: "C1", ts: parent.ts, text: "x" }),
    ).rejects.toMatchObject({
      data: { error: "cant_update_message" },
    });
  });

  it("refuses a section longer than Slack allows with invalid_blocks", async () => {
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "x".repeat(3001) } }];
    await expect(
      client({ logLevel: webApi.LogLevel.ERROR, logger: silentLogger() }).chat.postMessage({
        channel: "C1",
        text: "long",
        blocks,
      }),
    ).rejects.toMatchObject({ data: { error: "invalid_blocks" } });
    expect(fake.messages).toEqual([]);
  });

  it("cuts text at 40,000 characters as Slack does, and fails on request", async () => {
    const web = client({ logger: silentLogger() });
    await web.chat.postMessage({ channel: "C1", text: "y".repeat(40_010) });
    expect(fake.messages[0]?.text).toHaveLength(40_000);
    fake.failNext("chat.postMessage", "channel_not_found");
    await expect(web.chat.postMessage({ channel: "C9", text: "z" })).rejects.toMatchObject({
      data: { error: "channel_not_found" },
    });
    await expect(web.chat.postMessage({ channel: "C9", text: "z" })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("serves a file's private download only with the bot token", async () => {
    const file = fake.addFile({ name: "notes.txt", content: "hello file" });
    const { file: info } = await client().files.info({ file: file.id });
    expect(info).toMatchObject({ id: file.id, name: "notes.txt", size: 10 });
    const url = String(info?.url_private_download);
    const withToken = await fetch(url, {
      headers: { authorization: `Bearer ${FAKE_SLACK.botToken}` },
    });
    expect(await withToken.text()).toBe("hello file");
    const without = await fetch(url);
    expect(without.headers.get("content-type")).toContain("text/html");
  });

  it("answers an unimplemented method ok with a warning", async () => {
    const result = await client({ logger: silentLogger() }).apiCall("pins.add", { channel: "C1" });
    expect(result).toMatchObject({ ok: true, warning: "method_not_implemented_by_fake" });
  });

  it("with rejectRateLimitedCalls, a 429 throws a rate-limited error carrying Retry-After", async () => {
    fake.rateLimit("chat.update", 1, 7);
    const web = client({ rejectRateLimitedCalls: true });
    const error = await web.chat.update({ channel: "C1", ts: "1.2", text: "x" }).catch((e) => e);
    expect(error).toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(fake.callsTo("chat.update")).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({ status: 429, response: { error: "ratelimited" } });
  });

  it("by default waits out Retry-After, then with retries: 0 throws a plain request error", async () => {
    fake.rateLimit("chat.postMessage", 1, 1);
    const web = client({ logger: silentLogger() });
    const rateLimited: number[] = [];
    web.on(webApi.WebClientEvent.RATE_LIMITED, (retrySec: number) => rateLimited.push(retrySec));
    const started = Date.now();
    const error = await web.chat.postMessage({ channel: "C1", text: "x" }).catch((e) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(rateLimited).toEqual([1]);
    // The WebClient wraps its own "retry me" error as if the network had failed.
    expect(error).toMatchObject({ code: webApi.ErrorCode.RequestError });
    expect(error.retryAfter).toBeUndefined();
    expect(error.message).toMatch(/rate limit was exceeded .*retry-after: 1/);
  });

  it("with a retry left, waits out Retry-After and then succeeds", async () => {
    fake.rateLimit("chat.postMessage", 1, 1);
    const web = client({
      retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 },
      logger: silentLogger(),
    });
    const started = Date.now();
    const result = await web.chat.postMessage({ channel: "C1", text: "eventually" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.ok).toBe(true);
    expect(fake.callsTo("chat.postMessage").map((c) => c.status)).toEqual([429, 200]);
    expect(fake.messages.map((m) => m.text)).toEqual(["eventually"]);
  });
});

function silentLogger(): webApi.Logger {
  const noop = () => {};
  return {
    debug: noop,
    info: noop,
    warn: noop,
    error: noop,
    setLevel: noop,
    getLevel: () => webApi.LogLevel.ERROR,
    setName: noop,
  };
}
