import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { messageEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import type { FakeSlackFile } from "../../src/testing/fakes/slack-workspace.ts";
import {
  attachmentPipeline,
  contentText,
  imageParts,
  lastUserContent,
} from "../support/attachments.ts";
import { until } from "../support/channels.ts";
import { makeOggOpus, makePdf, makePng } from "../support/files.ts";
import { SLACK_SECRET, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";

let running: { harness: SlackHarness; voice: FakeOpenAI }[] = [];
afterEach(async () => {
  for (const { harness, voice } of running) {
    await harness.close();
    await voice.close();
  }
  running = [];
});

async function start(powers: { vision: boolean; transcription: boolean }) {
  const voice = await startFakeOpenAI();
  const harness = await startSlackHarness({ pipeline: attachmentPipeline(voice, powers) });
  running.push({ harness, voice });
  return { ...harness, voice };
}

/** A person shares files in a DM (a `file_share` message); resolves to the model's request. */
async function share(h: SlackHarness, files: Record<string, unknown>[], text = "look") {
  const before = h.pipe.fake.requests.length;
  const event = {
    ...messageEvent({ text, channelType: "im", channel: "D0HUMAN" }),
    subtype: "file_share",
    files,
  };
  const sent = await sendEvent(h.events[0] as string, SLACK_SECRET, event);
  expect(sent.status).toBe(200);
  await until(() => (h.pipe.fake.requests.length > before ? true : undefined));
  return h.pipe.fake.requests.at(-1);
}

/** The file object as Slack puts it in the event: no content, a url_private_download. */
function shared(file: FakeSlackFile): Record<string, unknown> {
  const { content: _bytes, ...fields } = file;
  return fields;
}

describe("files shared in Slack reach the model", () => {
  it("an image goes to a vision model downscaled, fetched with the bot token, and a PDF's text comes along", async () => {
    const h = await start({ vision: true, transcription: false });
    const png = h.slack.addFile({
      name: "chart.png",
      mimetype: "image/png",
      content: await makePng(900, 1200),
    });
    const pdf = h.slack.addFile({
      name: "memo.pdf",
      mimetype: "application/pdf",
      content: makePdf(["The memo text"]),
    });
    const request = await share(h, [shared(png), shared(pdf)]);
    const content = lastUserContent(request);
    const [image] = imageParts(content);
    const meta = await sharp(image).metadata();
    expect([meta.width, meta.height]).toEqual([384, 512]);
    expect(contentText(content)).toContain("--- page 1 ---\nThe memo text");
    // Images and texts in the order they were shared.
    expect(Array.isArray(content) && content.map((p) => p.type)).toEqual([
      "text",
      "text",
      "image_url",
      "text",
    ]);
    expect(h.slack.fileDownloads).toEqual([png.id, pdf.id]);
    expect(JSON.stringify(request?.body)).not.toContain(FAKE_SLACK.botToken);
  });

  it("an audio clip is transcribed; a file Slack hides is named by its id", async () => {
    const h = await start({ vision: false, transcription: true });
    const clip = h.slack.addFile({
      name: "audio_message.ogg",
      mimetype: "audio/ogg",
      content: makeOggOpus(),
    });
    const request = await share(
      h,
      [
        { ...shared(clip), subtype: "slack_audio" },
        { id: "F0HIDDEN", mode: "hidden_by_limit" },
      ],
      "",
    );
    const text = contentText(lastUserContent(request));
    expect(text).toContain('transcript follows]\n<untrusted source="transcript of ');
    expect(text).toContain("\na voice note of");
    expect(text).toContain("[file: F0HIDDEN]\n(it could not be fetched: Slack's files.info");
    expect(h.voice.transcriptions.map((t) => t.bytes.byteLength)).toEqual([
      makeOggOpus().byteLength,
    ]);
  });
});
