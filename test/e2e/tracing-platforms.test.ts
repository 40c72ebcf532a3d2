import type { ReadableSpan } from "@opentelemetry/sdk-trace-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-workspace.ts";
import { ALICE, startTelegram, type TelegramSetup } from "../fakes/telegram-setup.ts";
import { attachmentPipeline } from "../support/attachments.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";
import { makePng } from "../support/files.ts";
import { PIPELINE_API_KEY } from "../support/pipeline.ts";
import { SLACK_SECRET, startSlackHarness } from "../support/slack-harness.ts";
import {
  everythingSaid,
  httpSpans,
  parentOf,
  redisSpans,
  startTestTracing,
  type TestTracing,
} from "../support/tracing.ts";

let tracing: TestTracing;
const closers: (() => Promise<void>)[] = [];
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  tracing.exporter.reset();
});

const SECRET_TEXT = "my IBAN is DE89370400440532013000";
const ANSWER = "Noted, and never repeated.";

const id = (span: ReadableSpan) => span.spanContext().spanId;

/** The spans once the turn and its delivery have ended. */
function afterDelivery(): Promise<ReadableSpan[]> {
  return until(() => {
    const spans = tracing.spans();
    const names = spans.map((span) => span.name);
    return names.includes("switchyard.turn") && names.includes("switchyard.deliver")
      ? spans
      : undefined;
  });
}

/** The HTTP client spans a delivery made, as method and path. */
function deliveryRequests(spans: readonly ReadableSpan[]): string[][] {
  const deliver = only(spans, "switchyard.deliver");
  return httpSpans(spans)
    .filter((span) => parentOf(span) === id(deliver))
    .map((span) => [
      String(span.attributes["http.request.method"]),
      String(span.attributes["url.path"]),
    ]);
}

function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found, `one ${name} span`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

describe("traces of a message on a platform", () => {
  it("shows the Discord post and the model requests as HTTP spans, and Redis commands, in the message's trace", async () => {
    const setup: DiscordSetup = await startDiscordBot();
    closers.push(() => setup.close());
    setup.pipe.fake.script({ content: ANSWER });
    setup.discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> ${SECRET_TEXT}`,
    });
    await until(() => (botPosts(setup.discord, FAKE_DISCORD.channelId).length ? true : undefined));
    const spans = await afterDelivery();
    const ingress = only(spans, "switchyard.ingress");
    const trace = spans.filter(
      (span) => span.spanContext().traceId === ingress.spanContext().traceId,
    );

    const deliver = only(trace, "switchyard.deliver");
    const posts = httpSpans(trace).filter((span) => parentOf(span) === id(deliver));
    expect(
      posts.map((span) => [span.attributes["http.request.method"], span.attributes["url.path"]]),
      // The route, without the channel's id.
    ).toEqual([["POST", "/api/v10/channels/{id}/messages"]]);
    const model = only(trace, "switchyard.model.request");
    expect(httpSpans(trace).filter((span) => parentOf(span) === id(model))).toHaveLength(1);
    expect(redisSpans(trace).length).toBeGreaterThan(0);

    const said = everythingSaid(spans);
    for (const secret of [
      SECRET_TEXT,
      "DE89370400440532013000",
      ANSWER,
      PIPELINE_API_KEY,
      setup.discord.token,
      FAKE_DISCORD.channelId,
      FAKE_DISCORD.guildId,
      HUMAN,
    ]) {
      expect(said).not.toContain(secret);
    }
  });

  it("never shows the Telegram bot token of a file URL, which carries it in the path", async () => {
    const voice: FakeOpenAI = await startFakeOpenAI();
    const setup: TelegramSetup = await startTelegram({
      pipeline: attachmentPipeline(voice, { vision: true, transcription: false }),
    });
    closers.push(async () => {
      await voice.close();
      await setup.telegram.close();
    });
    closers.push(async () => {
      await setup.channel.stop();
      await setup.pipe.close();
    });
    setup.pipe.fake.script({ content: ANSWER });
    const photo = setup.telegram.addFile(await makePng(64, 64), "photo.png");
    setup.telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      caption: SECRET_TEXT,
      extra: { photo: [{ ...photo, width: 64, height: 64 }] },
    });
    await until(() => setup.telegram.botMessages(ALICE.id).at(0)?.text);
    const spans = await afterDelivery();

    const download = httpSpans(spans).find((span) =>
      String(span.attributes["url.path"]).startsWith("/file/"),
    );
    expect(download?.attributes["url.path"]).toMatch(/^\/file\/botREDACTED\/.+/);
    expect(download?.attributes["url.full"]).toContain("/file/botREDACTED/");
    const said = everythingSaid(spans);
    const [botId, secretHalf] = setup.telegram.token.split(":") as [string, string];
    expect(said).not.toContain(setup.telegram.token);
    expect(said).not.toContain(secretHalf);
    expect(said).not.toContain(`bot${botId}`);
    expect(said).not.toContain(SECRET_TEXT);
  });

  it("shows Slack's chat.postMessage under the delivery, without the bot token or the signing secret", async () => {
    // Not streamed: the answer is posted by the delivery, not edited into a message the model request began.
    const setup = await startSlackHarness({ pipeline: { streamEditMs: 0 } });
    closers.push(() => setup.close());
    setup.pipe.fake.script({ content: ANSWER });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${SECRET_TEXT}` });
    expect((await sendEvent(setup.events[0] as string, SLACK_SECRET, mention)).status).toBe(200);
    await until(() => (setup.slack.callsTo("chat.postMessage").length ? true : undefined));
    const spans = await afterDelivery();

    // The Web API calls fetch (undici) and the token goes in a header, which no span reads.
    expect(deliveryRequests(spans)).toEqual([["POST", "/api/chat.postMessage"]]);
    // One trace from Bolt's server to the post: receiving the event is not traced away.
    const ingress = only(spans, "switchyard.ingress");
    expect(only(spans, "switchyard.deliver").spanContext().traceId).toBe(
      ingress.spanContext().traceId,
    );
    const said = everythingSaid(spans);
    for (const secret of [FAKE_SLACK.botToken, SLACK_SECRET, SECRET_TEXT, ANSWER]) {
      expect(said).not.toContain(secret);
    }
  });

  it("shows Telegram's sendMessage under the delivery, with the token out of its path", async () => {
    const setup: TelegramSetup = await startTelegram();
    closers.push(async () => {
      await setup.channel.stop();
      await setup.pipe.close();
      await setup.telegram.close();
    });
    setup.pipe.fake.script({ content: ANSWER });
    setup.telegram.userSends({ chat: ALICE.id, from: ALICE, text: SECRET_TEXT });
    await until(() => setup.telegram.botMessages(ALICE.id).at(0)?.text);
    const spans = await afterDelivery();

    // grammY's calls go through undici (bot-api-fetch.ts), once: no second span from `node:http`.
    expect(deliveryRequests(spans)).toEqual([["POST", "/botREDACTED/sendMessage"]]);
    const send = httpSpans(spans).find((span) =>
      String(span.attributes["url.path"]).endsWith("/sendMessage"),
    );
    expect(send?.attributes["url.full"]).toContain("/botREDACTED/sendMessage");
    const said = everythingSaid(spans);
    const [botId, secretHalf] = setup.telegram.token.split(":") as [string, string];
    for (const secret of [setup.telegram.token, secretHalf, `bot${botId}`, SECRET_TEXT, ANSWER]) {
      expect(said).not.toContain(secret);
    }
  });
});
