import { createHash } from "node:crypto";
import { Api } from "grammy";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramChannel } from "../../src/platforms/telegram/channel.ts";
import { fitsAsPhoto } from "../../src/platforms/telegram/upload.ts";
import { UploadRefusedError } from "../../src/platforms/upload-error.ts";
import type { OutgoingFile } from "../../src/ports/outbound.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ADA, TEAM } from "../fakes/telegram-setup.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("telegram-upload");
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let telegram: FakeTelegram;
let topic: number;
beforeEach(async () => {
  telegram = await startFakeTelegram();
  telegram.addChat({
    id: TEAM,
    type: "supergroup",
    title: "Team",
    is_forum: true,
    admins: [ADA.id],
  });
  topic = telegram.createTopic(TEAM, "Reports", ADA);
});
afterEach(async () => {
  await telegram.close();
});

function workerChannel(): TelegramChannel {
  const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
  channel.useOutboundOnly(db.redis, db.prefix);
  return channel;
}

const target = (replyTo?: number, chat = TEAM) => ({
  platform: "telegram",
  workspace: String(chat),
  channel: String(chat),
  conversation: `${chat}:${topic}`,
  thread: String(topic),
  ...(replyTo !== undefined ? { replyTo: String(replyTo) } : {}),
});

/** Bytes no text encoding survives, with CR LF and a boundary-like line among them. */
const REPORT: OutgoingFile = {
  name: "Q3 report.pdf",
  type: "application/pdf",
  bytes: new Uint8Array([
    ...Buffer.from("%PDF-1.4\r\n----------\r\n"),
    ...Array.from({ length: 4096 }, (_, i) => (i * 13) % 256),
  ]),
};

async function png(width: number, height: number): Promise<OutgoingFile> {
  const bytes = await sharp({
    create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } },
  })
    .png()
    .toBuffer();
  return { name: "chart.png", type: "image/png", bytes: new Uint8Array(bytes) };
}

/** The bytes Telegram holds for a file_id, fetched as the Bot API serves them. */
async function download(fileId: string): Promise<Uint8Array> {
  const file = await new Api(telegram.token, { apiRoot: telegram.apiRoot }).getFile(fileId);
  const response = await fetch(`${telegram.apiRoot}/file/bot${telegram.token}/${file.file_path}`);
  return new Uint8Array(await response.arrayBuffer());
}

describe("Telegram file uploads through grammY's InputFile", () => {
  it("sends a document into the topic as a reply, its bytes and name intact", async () => {
    const asked = telegram.userSends({ chat: TEAM, from: ADA, text: "the report?", topic });
    const { outbound } = workerChannel();
    const ref = await outbound.upload(target(asked.message?.message_id), REPORT, {
      idempotencyKey: "turn-1:file:0",
    });
    const [sent, ...more] = telegram.botMessages(TEAM, topic);
    expect(more).toHaveLength(0);
    expect(sent).toMatchObject({
      message_id: Number(ref),
      message_thread_id: topic,
      reply_to_message: { message_id: asked.message?.message_id },
      document: { file_name: "Q3 report.pdf", mime_type: "application/pdf" },
    });
    expect(sha(await download(sent?.document?.file_id ?? ""))).toBe(sha(REPORT.bytes));
    expect(telegram.callsTo("sendPhoto")).toHaveLength(0);
  });

  it("sends a picture within the photo limits as a photo, and one beyond them as a document", async () => {
    const { outbound } = workerChannel();
    const chart = await png(640, 480);
    await outbound.upload(target(), chart, { idempotencyKey: "turn-2:file:0" });
    const banner = await png(9_000, 1_200);
    await outbound.upload(target(), banner, { idempotencyKey: "turn-2:file:1" });
    const [photo, document] = telegram.botMessages(TEAM, topic);
    expect(photo?.photo).toEqual([expect.objectContaining({ width: 640, height: 480 })]);
    expect(sha(await download(photo?.photo?.[0]?.file_id ?? ""))).toBe(sha(chart.bytes));
    expect(document?.document).toMatchObject({ file_name: "chart.png", mime_type: "image/png" });
    expect(sha(await download(document?.document?.file_id ?? ""))).toBe(sha(banner.bytes));
  });

  it("lands a repeated upload with the same key once, across worker processes", async () => {
    const first = await workerChannel().outbound.upload(target(), REPORT, {
      idempotencyKey: "turn-3:file:0",
    });
    const again = await workerChannel().outbound.upload(target(), REPORT, {
      idempotencyKey: "turn-3:file:0",
      mayExist: true,
    });
    expect(again).toBe(first);
    expect(telegram.callsTo("sendDocument")).toHaveLength(1);
    expect(telegram.botMessages(TEAM, topic)).toHaveLength(1);
  });

  it("keeps one copy when two deliveries of the same file race", async () => {
    const [a, b] = await Promise.all([
      workerChannel().outbound.upload(target(), REPORT, { idempotencyKey: "turn-5:file:0" }),
      workerChannel().outbound.upload(target(), REPORT, { idempotencyKey: "turn-5:file:0" }),
    ]);
    expect(a).toBe(b);
    expect(telegram.botMessages(TEAM, topic).map((m) => m.message_id)).toEqual([Number(a)]);
  });

  it("names Telegram's refusal without the token", async () => {
    const { outbound } = workerChannel();
    const empty = { ...REPORT, bytes: new Uint8Array() };
    const refused = outbound.upload(target(), empty, { idempotencyKey: "turn-4:file:0" });
    await expect(refused).rejects.toBeInstanceOf(UploadRefusedError);
    await expect(refused).rejects.toThrow(
      /Telegram refused the file "Q3 report\.pdf": Bad Request: file must be non-empty/,
    );
    const gone = outbound.upload(target(undefined, 42), REPORT, {
      idempotencyKey: "turn-4:file:1",
    });
    await expect(gone).rejects.toThrow(/Bad Request: chat not found/);
    for (const attempt of [refused, gone]) {
      await expect(attempt).rejects.not.toThrow(telegram.token.split(":")[1] as string);
    }
    expect(telegram.botMessages(TEAM, topic)).toHaveLength(0);
  });
});

describe("which pictures Telegram takes as photos", () => {
  const picture = async (width: number, height: number, format: "webp" | "gif" | "jpeg") => {
    const image = sharp({ create: { width, height, channels: 3, background: "#3366cc" } });
    const bytes = await image.toFormat(format).toBuffer();
    return { name: `p.${format}`, type: `image/${format}`, bytes: new Uint8Array(bytes) };
  };

  it("takes png, jpeg and webp within 10,000 px of sides and 20:1, nothing else", async () => {
    expect(await fitsAsPhoto(await picture(400, 300, "webp"))).toBe(true);
    expect(await fitsAsPhoto(await picture(2_000, 100, "jpeg"))).toBe(true);
    expect(await fitsAsPhoto(await picture(2_100, 100, "jpeg"))).toBe(false);
    expect(await fitsAsPhoto(await picture(40, 30, "gif"))).toBe(false);
    // A type that says image over bytes that are not one: a document.
    expect(await fitsAsPhoto({ ...REPORT, type: "image/png" })).toBe(false);
  });
});
