import { WebClient } from "@slack/web-api";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { DiscordFiles } from "../../src/platforms/discord/files.ts";
import { SlackFiles } from "../../src/platforms/slack/files.ts";
import { createTelegramApi } from "../../src/platforms/telegram/api.ts";
import { TelegramFiles } from "../../src/platforms/telegram/files.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { type LocalServer, listenLocal } from "../../src/testing/fakes/local-server.ts";
import { startFakeSlackApi } from "../../src/testing/fakes/slack-api.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import {
  DocumentStore,
  documentId,
  FileReader,
  readAttachmentCapability,
  readAttachmentTool,
} from "../../src/tools/attachments/index.ts";
import { makeDocx, makePdf } from "../support/files.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const address: ConversationAddress = {
  platform: "telegram",
  workspace: "5",
  channel: "5",
  conversation: "5",
};

describe("the attachment fetcher", () => {
  let redis: Redis;
  let telegram: FakeTelegram;
  let local: LocalServer;
  let localUrl: string;
  const prefix = uniquePrefix("files");

  beforeAll(async () => {
    redis = connectRedis();
    telegram = await startFakeTelegram();
    local = await listenLocal((_, res) => void res.end("internal secrets"));
    localUrl = `${local.url}/x.txt`;
  });

  afterAll(async () => {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await telegram.close();
    await local.close();
  });

  const reader = (limits = DEFAULT_ATTACHMENTS) =>
    new FileReader({
      redis,
      keys: new KeyScheme(prefix),
      sources: (platform) =>
        platform === "telegram"
          ? new TelegramFiles(
              () => createTelegramApi(telegram.token, telegram.apiRoot),
              telegram.token,
              () => telegram.apiRoot,
            )
          : new DiscordFiles("https://discord.com/api"),
      limits: () => limits,
    });

  /** What the host has for the turn: nothing, so images are named and voice is not transcribed. */
  const NONE = {};

  it("reads a file once: a second read of the same file id (a resumed turn) comes from the cache", async () => {
    const pdf = telegram.addFile(makePdf(["cached text"]), "a.pdf");
    const attachment = { ref: pdf.file_id, name: "a.pdf", size: pdf.file_size };
    const first = await reader().read(address, [attachment], new AbortController().signal, NONE);
    const second = await reader().read(address, [attachment], new AbortController().signal, NONE);
    expect(second).toEqual(first);
    expect(first[0]?.text).toBe("--- page 1 ---\ncached text");
    expect(telegram.fileDownloads.filter((p) => p.includes(pdf.file_id))).toHaveLength(1);
    const key = new KeyScheme(prefix).attachment(address, "x");
    expect(key.startsWith(`${prefix}:{conv:telegram:5:5:5}:attachment:`)).toBe(true);
    expect(key).not.toContain(pdf.file_id);
  });

  it("keeps the per-turn total: once it is spent, the next file is refused with the key to raise", async () => {
    const one = telegram.addFile(Buffer.alloc(3_000, "x"), "one.txt");
    const two = telegram.addFile(Buffer.alloc(3_000, "y"), "two.txt");
    const read = await reader({ ...DEFAULT_ATTACHMENTS, maxTurnBytes: 4_000 }).read(
      address,
      [
        { ref: one.file_id, name: "one.txt", size: one.file_size },
        { ref: two.file_id, name: "two.txt", size: two.file_size },
      ],
      new AbortController().signal,
      NONE,
    );
    expect(read.map((r) => r.outcome)).toEqual(["text", "refused"]);
    expect(read[1]?.note).toContain("attachments.max_turn_bytes");
  });

  it("sends a URL off the platform's host through the SSRF guard, and never says the token", async () => {
    const discord = { ...address, platform: "discord" };
    const [refused] = await reader().read(
      discord,
      [{ ref: "123", name: "x.txt", url: localUrl }],
      new AbortController().signal,
      NONE,
    );
    expect(refused?.outcome).toBe("failed");
    expect(refused?.note).toMatch(/^it could not be fetched: the address is not allowed: /);
    // What a person can do about a file link, not the web tool's settings.
    expect(refused?.note).toContain("ask the person to upload it instead of linking it");
    expect(refused?.note).not.toMatch(/fetch_url|allow_hosts/);
    expect(refused?.text).toBeUndefined();
    const [missing] = await reader().read(
      address,
      [{ ref: "no-such-file", name: "gone.txt" }],
      new AbortController().signal,
      NONE,
    );
    expect(missing?.outcome).toBe("failed");
    expect(JSON.stringify(missing)).not.toContain(telegram.token);
  });

  it("says what was measured when a file's declared size lies: cut at the cap, not 'it is 1 KB'", async () => {
    const liar = telegram.addFile(Buffer.alloc(30_000, "z"), "small.txt");
    const [read] = await reader({ ...DEFAULT_ATTACHMENTS, maxDocumentBytes: 4_000 }).read(
      address,
      [{ ref: liar.file_id, name: "small.txt", size: 1_000 }],
      new AbortController().signal,
      NONE,
    );
    expect(read?.outcome).toBe("refused");
    expect(read?.note).toBe(
      "not read: it is over the 4 KB limit (attachments.max_document_bytes), though it was said to be 1 KB; ask for a smaller file",
    );
  });

  /** A reader of the fake Bot API's files under `limits`; it keeps long documents when the turn has read_attachment. */
  const keepingReader = (limits: typeof DEFAULT_ATTACHMENTS) =>
    new FileReader({
      redis,
      keys: new KeyScheme(prefix),
      sources: () =>
        new TelegramFiles(
          () => createTelegramApi(telegram.token, telegram.apiRoot),
          telegram.token,
          () => telegram.apiRoot,
        ),
      limits: () => limits,
    });

  it("keeps a document longer than the inline cap for read_attachment, which reads it page by page", async () => {
    const limits = { ...DEFAULT_ATTACHMENTS, maxInlineChars: 100 };
    const body = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(2, "0")}`).join(
      "\n",
    );
    const doc = telegram.addFile(Buffer.from(body), "long.txt");
    const keeping = keepingReader(limits);
    const [read] = await keeping.read(
      address,
      [{ ref: doc.file_id, name: "long.txt", size: doc.file_size }],
      new AbortController().signal,
      { read_attachment: readAttachmentCapability(limits) },
    );
    const id = documentId(doc.file_id);
    expect(read?.text).toBe(body.slice(0, 100));
    expect(read?.note).toBe(
      `page 1 of 3 of document ${id} (${body.length} characters); read_attachment reads pages 2 to 3, for 7 days`,
    );
    const tool = readAttachmentTool(() => new DocumentStore(redis, new KeyScheme(prefix)));
    const ctx = { ...address, user: "5", signal: new AbortController().signal };
    expect(await tool.execute({ document: id, page: 2 }, ctx)).toBe(
      `Document ${id}, page 2 of 3:\n<untrusted source="document ${id}, page 2">\n${body.slice(100, 200)}\n</untrusted>`,
    );
    expect(await tool.execute({ document: id, page: 9 }, ctx)).toBe(
      `Document ${id} has pages 1 to 3; there is no page 9.`,
    );
    const elsewhere = { ...ctx, conversation: "other" };
    expect(await tool.execute({ document: id, page: 2 }, elsewhere)).toContain("is not kept");
    expect(readAttachmentCapability({ ...limits, keepSeconds: 0 })).toEqual({
      available: false,
      reason: "attachments.keep_seconds is 0: long documents are cut, not kept",
    });
  });

  it("keeps a long Word document for read_attachment too, its paragraphs as text", async () => {
    const limits = { ...DEFAULT_ATTACHMENTS, maxInlineChars: 100 };
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Section ${i}: the plan goes on.`);
    const text = paragraphs.join("\n\n");
    const doc = telegram.addFile(makeDocx(paragraphs), "plan.docx");
    const keeping = keepingReader(limits);
    const [read] = await keeping.read(
      address,
      [{ ref: doc.file_id, name: "plan.docx", size: doc.file_size }],
      new AbortController().signal,
      { read_attachment: readAttachmentCapability(limits) },
    );
    const id = documentId(doc.file_id);
    const pages = Math.ceil(text.length / 100);
    expect(read?.type).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(read?.text).toBe(text.slice(0, 100));
    expect(read?.note).toBe(
      `page 1 of ${pages} of document ${id} (${text.length} characters); read_attachment reads pages 2 to ${pages}, for 7 days`,
    );
    const tool = readAttachmentTool(() => new DocumentStore(redis, new KeyScheme(prefix)));
    const ctx = { ...address, user: "5", signal: new AbortController().signal };
    expect(await tool.execute({ document: id, page: 2 }, ctx)).toBe(
      `Document ${id}, page 2 of ${pages}:\n<untrusted source="document ${id}, page 2">\n${text.slice(100, 200)}\n</untrusted>`,
    );
  });

  it("takes Slack's sign-in page, which it serves with a 200 to a wrong token, for a failure, not the file", async () => {
    const slack = await startFakeSlackApi();
    try {
      const file = slack.addFile({
        name: "r.pdf",
        mimetype: "application/pdf",
        content: makePdf(["x"]),
      });
      const wrongToken = new FileReader({
        redis,
        keys: new KeyScheme(prefix),
        sources: () => new SlackFiles(new WebClient("xoxb-wrong"), "xoxb-wrong", slack.url),
        limits: () => DEFAULT_ATTACHMENTS,
      });
      const [read] = await wrongToken.read(
        { ...address, platform: "slack" },
        [
          {
            ref: file.id,
            name: "r.pdf",
            mimeType: "application/pdf",
            url: file.url_private_download,
          },
        ],
        new AbortController().signal,
        NONE,
      );
      expect(read?.outcome).toBe("failed");
      expect(read?.note).toBe(
        "the platform sent a web page instead of the file (on Slack: the app needs the files:read scope)",
      );
    } finally {
      await slack.close();
    }
  });
});
