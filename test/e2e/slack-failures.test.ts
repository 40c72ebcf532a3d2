import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
} from "../../src/testing/fakes/slack-requests.ts";
import { type FakeSocketMode, startFakeSocketMode } from "../fakes/slack-socket.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";
import {
  fakeSlackChannel,
  SLACK_APP_TOKEN,
  SLACK_SECRET,
  type SlackHarness,
  settle,
  startSlackHarness,
  visibleFlat,
} from "../support/slack-harness.ts";

/**
 * When ingress cannot take an event (Redis down, Slack's API failing), the
 * event must stay Slack's to deliver again: over HTTP it is answered 503,
 * over Socket Mode it is not acked; and the failed take leaves nothing
 * behind, so the redelivery runs it.
 */
let harness: SlackHarness | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await harness?.close();
  await cleanup?.();
  harness = undefined;
  cleanup = undefined;
});

/** A Redis client to a port nothing listens on, failing every command at once. */
function unreachableRedis(): Redis {
  const redis = new Redis("redis://127.0.0.1:1", {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => {}); // refused connections are the point here
  return redis;
}

async function startWithoutRedis(mode: "http" | "socket") {
  const slack: FakeSlackApi = await startFakeSlackApi();
  const socket: FakeSocketMode | undefined =
    mode === "socket"
      ? await startFakeSocketMode(slack, { appToken: SLACK_APP_TOKEN, ackTimeoutMs: 1_500 })
      : undefined;
  const channel = fakeSlackChannel(slack, mode);
  const pipe: Pipeline = await startPipeline({ tools: [lookupTool] });
  await pipe.app.worker?.worker.waitUntilReady();
  const dead = unreachableRedis();
  const warnings: string[] = [];
  await channel.start({
    ...channelRuntime(pipe, [lookupTool]),
    redis: dead,
    logger: { warn: (message) => void warnings.push(message) },
  });
  cleanup = async () => {
    await channel.stop();
    await socket?.close();
    dead.disconnect();
    await pipe.close();
    await slack.close();
  };
  return { slack, socket, pipe, warnings, url: `http://127.0.0.1:${channel.port}/slack/events` };
}

describe("Slack events ingress could not take", () => {
  it("answers 503 over HTTP when Redis is unreachable, and says so in the log", async () => {
    const { url, warnings, pipe } = await startWithoutRedis("http");
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hi` });
    const sent = await sendEvent(url, SLACK_SECRET, mention);
    expect(sent.status).toBe(503);
    expect(warnings.join("\n")).toMatch(/Slack will deliver it again/);
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("leaves the envelope unacked over Socket Mode when Redis is unreachable", async () => {
    const { socket } = await startWithoutRedis("socket");
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hi` });
    await expect(
      (socket as FakeSocketMode).sendEvent(mention, { envelopeId: "env-no-redis" }),
    ).rejects.toThrow(/No ack for/);
  });

  it("takes a typed command again on Slack's redelivery when its answer could not be posted", async () => {
    harness = await startSlackHarness();
    const h = harness;
    const [url] = h.events as [string];
    h.slack.failNext("chat.postMessage", "internal_error");
    const typed = messageEvent({ text: "!tools", channel: "D0HUMAN", channelType: "im" });
    expect((await sendEvent(url, SLACK_SECRET, typed, { eventId: "EvFail1" })).status).toBe(503);
    expect(
      (await sendEvent(url, SLACK_SECRET, typed, { eventId: "EvFail1", retryNum: 1 })).status,
    ).toBe(200);
    await until(() => (visibleFlat(h.slack, "D0HUMAN").length ? true : undefined));
    await settle();
    expect(visibleFlat(h.slack, "D0HUMAN")).toHaveLength(1);
  });
});
