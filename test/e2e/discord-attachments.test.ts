import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import {
  attachmentPipeline,
  contentText,
  imageParts,
  lastUserContent,
} from "../support/attachments.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";
import { makeOggOpus, makePng } from "../support/files.ts";

let running: { bot: DiscordSetup; voice: FakeOpenAI }[] = [];
afterEach(async () => {
  for (const { bot, voice } of running) {
    await bot.close();
    await voice.close();
  }
  running = [];
});

async function start(powers: { vision: boolean; transcription: boolean }) {
  const voice = await startFakeOpenAI();
  const bot = await startDiscordBot({ pipeline: attachmentPipeline(voice, powers) });
  running.push({ bot, voice });
  return { ...bot, voice };
}

/** A person posts in the guild channel with attachments; resolves to the model's request and the answer. */
async function post(s: DiscordSetup, attachments: Record<string, unknown>[], flags = 0) {
  const before = botPosts(s.discord, FAKE_DISCORD.channelId).length;
  s.discord.messageCreate({
    channelId: FAKE_DISCORD.channelId,
    authorId: HUMAN,
    content: `<@${FAKE_DISCORD.botUserId}> ${flags ? "" : "see"}`,
    extra: { attachments, flags },
  });
  const answer = await until(() => botPosts(s.discord, FAKE_DISCORD.channelId).at(before)?.content);
  return { request: s.pipe.fake.requests.at(-1), answer };
}

describe("attachments posted on Discord reach the model", () => {
  it("with vision, an image from the CDN becomes a downscaled image_url part", async () => {
    const s = await start({ vision: true, transcription: false });
    const file = s.discord.addFile(await makePng(1024, 1024), "square.png", "image/png");
    const { request } = await post(s, [file]);
    const [image] = imageParts(lastUserContent(request));
    const meta = await sharp(image).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 512, 512]);
    expect(s.discord.fileDownloads).toEqual([file.id]);
  });

  it("without vision, the note says the bot cannot see images and no image is sent", async () => {
    const s = await start({ vision: false, transcription: false });
    const file = s.discord.addFile(await makePng(32, 32), "tiny.png", "image/png");
    const { request, answer } = await post(s, [file]);
    const content = lastUserContent(request);
    expect(imageParts(content)).toEqual([]);
    expect(contentText(content)).toContain(
      "this bot cannot see images (the configured model has no vision)",
    );
    expect(answer).toMatch(/^echo: /);
  });

  it("a voice message (IS_VOICE_MESSAGE) is transcribed from its OGG bytes", async () => {
    const s = await start({ vision: false, transcription: true });
    const ogg = makeOggOpus();
    const file = {
      ...s.discord.addFile(ogg, "voice-message.ogg", "audio/ogg"),
      duration_secs: 1.5,
      waveform: "AAAA",
    };
    const { request } = await post(s, [file], 1 << 13);
    expect(Buffer.from(s.voice.transcriptions[0]?.bytes ?? []).equals(ogg)).toBe(true);
    expect(contentText(lastUserContent(request))).toContain(
      `[voice note: voice-message.ogg (audio/ogg, ${ogg.byteLength} bytes), transcript follows]`,
    );
  });
});
