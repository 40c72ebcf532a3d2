import { readFileSync } from "node:fs";
import fc from "fast-check";
import type { Message } from "grammy/types";
import { describe, expect, it } from "vitest";
import { ATTACHMENT_NAME_LIMIT } from "../../src/core/attachments/attachment.ts";
import {
  type DiscordMessageLike,
  normalizeDiscordMessage,
} from "../../src/platforms/discord/normalize.ts";
import { normalizeSlackEvent, readMessageEvent } from "../../src/platforms/slack/normalize.ts";
import { normalizeTelegramMessage } from "../../src/platforms/telegram/normalize.ts";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/attachments/${name}`, import.meta.url), "utf8"));

const SLACK = { teamId: "T0AB12CD3", botUserId: "UBOT", session: "thread" } as const;
const TELEGRAM = { bot: { id: 42, username: "switchyard_bot" }, conversation: "chat" } as const;
const DISCORD = { botUserId: "1312345678900000999", conversation: "thread" } as const;

/** A Discord gateway message in the shape discord.js hands the channel (the fields it reads). */
function discordLike(raw: Record<string, unknown>): DiscordMessageLike {
  const files = (Array.isArray(raw.attachments) ? raw.attachments : []) as Record<
    string,
    unknown
  >[];
  return {
    id: String(raw.id),
    content: String(raw.content ?? ""),
    createdTimestamp: 1_733_054_400_000,
    guildId: "1312345678900000100",
    channelId: String(raw.channel_id),
    author: { id: "1312345678900000009", username: "ada", bot: false },
    channel: { isThread: () => false },
    attachments: new Map(
      files.map((a) => [
        String(a.id),
        {
          id: a.id as string,
          name: a.filename as string,
          contentType: (a.content_type ?? null) as string | null,
          size: a.size as number,
          url: a.url as string,
          waveform: (a.waveform ?? null) as string | null,
        },
      ]),
    ),
    mentions: { users: new Map() },
    flags: { bitfield: typeof raw.flags === "number" ? raw.flags : 0 },
  };
}

describe("attachments from real payload shapes", () => {
  it("Slack file_share: id, name, declared type and size, url_private_download; an audio clip is voice; a hidden file keeps its id", () => {
    const event = readMessageEvent(fixture("slack-file-share.json"));
    const message = event && normalizeSlackEvent(event, SLACK);
    expect(message?.attachments).toEqual([
      {
        ref: "F0ABC123",
        name: "report.pdf",
        mimeType: "application/pdf",
        size: 48213,
        url: "https://files.slack.com/files-pri/T0AB12CD3-F0ABC123/download/report.pdf",
      },
      {
        ref: "F0ABC124",
        name: "audio_message.webm",
        mimeType: "audio/webm",
        size: 20112,
        url: "https://files.slack.com/files-pri/T0AB12CD3-F0ABC124/download/audio_message.webm",
        voice: true,
      },
      { ref: "F0ABC125", name: "F0ABC125" },
    ]);
  });

  it("Telegram: the largest photo size, a voice note, audio and a document, by file_id", () => {
    const messages = fixture("telegram-messages.json");
    const of = (key: string) =>
      normalizeTelegramMessage(messages[key] as Message, TELEGRAM)?.attachments;
    expect(of("photo")).toEqual([
      {
        ref: "AgACAgIAAxkBAAIBsmdTbig",
        name: "photo-AQADbig.jpg",
        mimeType: "image/jpeg",
        size: 61247,
      },
    ]);
    expect(of("voice")).toEqual([
      {
        ref: "AwACAgIAAxkBAAIBs2dTvoice",
        name: "voice-note.ogg",
        mimeType: "audio/ogg",
        size: 9134,
        voice: true,
      },
    ]);
    expect(of("audio")?.[0]).toMatchObject({ name: "interview.mp3", mimeType: "audio/mpeg" });
    expect(of("audio")?.[0]?.voice).toBeUndefined();
    expect(of("document")).toEqual([
      {
        ref: "BQACAgIAAxkBAAIBtWdTdoc",
        name: "notes.md",
        mimeType: "text/markdown",
        size: 1024,
      },
    ]);
  });

  it("Discord: attachment ids with their CDN URLs; a voice message's audio is voice", () => {
    const messages = fixture("discord-messages.json");
    const files = normalizeDiscordMessage(discordLike(messages.attachments), DISCORD)?.attachments;
    expect(files?.map((f) => [f.ref, f.name, f.mimeType, f.voice])).toEqual([
      ["1312345678901230001", "screenshot.png", "image/png", undefined],
      ["1312345678901230002", "paper.pdf", "application/pdf", undefined],
    ]);
    expect(files?.[0]?.url).toMatch(/^https:\/\/cdn\.discordapp\.com\/attachments\//);
    const voice = normalizeDiscordMessage(discordLike(messages.voice), DISCORD);
    expect(voice?.attachments).toEqual([
      expect.objectContaining({ ref: "1312345678901230003", mimeType: "audio/ogg", voice: true }),
    ]);
  });
});

/** Anything at all where a file field should be, sometimes the right type. */
const oddValue = fc.oneof(
  fc.anything(),
  fc.string({ maxLength: 400 }),
  fc.constantFrom(Number.MAX_VALUE, -1, 1e300, Number.NaN, 2 ** 60, 0.5, Infinity),
  fc.constantFrom("image/png", "IMAGE/PNG; charset=x", "not a type", "https://x.test/f", ""),
);
const oddFile = fc.dictionary(
  fc.constantFrom(
    "id",
    "file_id",
    "name",
    "file_name",
    "mimetype",
    "mime_type",
    "size",
    "file_size",
    "url_private_download",
    "subtype",
    "file_unique_id",
  ),
  oddValue,
);

/** Every attachment a normalizer lets through is in the shape the queue takes. */
function wellFormed(attachments: readonly Record<string, unknown>[] | undefined): void {
  for (const a of attachments ?? []) {
    expect(typeof a.ref).toBe("string");
    expect((a.ref as string).length).toBeGreaterThan(0);
    expect(typeof a.name).toBe("string");
    expect((a.name as string).length).toBeLessThanOrEqual(ATTACHMENT_NAME_LIMIT);
    if (a.size !== undefined)
      expect(Number.isSafeInteger(a.size) && (a.size as number) >= 0).toBe(true);
    if (a.mimeType !== undefined) expect(a.mimeType).toMatch(/^[a-z0-9][^/\s;]*\/[^/\s;]+$/);
    if (a.url !== undefined) expect(a.url).toMatch(/^https?:\/\//);
  }
}

describe("odd file shapes never crash a normalizer", () => {
  it("Slack", () => {
    fc.assert(
      fc.property(fc.array(oddFile, { maxLength: 5 }), fc.anything(), (files, text) => {
        const base = fixture("slack-file-share.json");
        const event = readMessageEvent({ ...base, files, text });
        if (event) wellFormed(normalizeSlackEvent(event, SLACK)?.attachments as never);
      }),
    );
  });

  it("Telegram", () => {
    const base = fixture("telegram-messages.json").photo;
    fc.assert(
      fc.property(
        fc.record(
          {
            photo: fc.oneof(fc.array(oddFile, { maxLength: 4 }), fc.anything()),
            voice: fc.oneof(oddFile, fc.anything()),
            audio: oddFile,
            document: oddFile,
            video: fc.anything(),
          },
          { requiredKeys: [] },
        ),
        (extra) => {
          const message = { ...base, ...extra } as unknown as Message;
          wellFormed(normalizeTelegramMessage(message, TELEGRAM)?.attachments as never);
        },
      ),
    );
  });

  it("Discord", () => {
    const base = fixture("discord-messages.json").voice;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: oddValue,
            filename: oddValue,
            content_type: oddValue,
            size: oddValue,
            url: oddValue,
            waveform: oddValue,
          }),
          { maxLength: 4 },
        ),
        fc.oneof(fc.integer(), fc.constant(Number.NaN)),
        (attachments, flags) => {
          const like = discordLike({ ...base, attachments, flags });
          wellFormed(normalizeDiscordMessage(like, DISCORD)?.attachments as never);
        },
      ),
    );
  });
});
