import { createHash } from "node:crypto";
import { Client } from "discord.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiscordOutbound } from "../../src/platforms/discord/outbound.ts";
import { UploadRefusedError } from "../../src/platforms/upload-error.ts";
import type { OutgoingFile } from "../../src/ports/outbound.ts";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";

const GUILD = FAKE_DISCORD.guildId;
const GENERAL = FAKE_DISCORD.channelId;
const THREAD = "1300000000000000002";
const LOCKED = "1300000000000000003";
const ATTACH_FILES = String(1 << 15);
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Bytes no text encoding survives, with CR LF and a boundary-like line among them. */
const REPORT: OutgoingFile = {
  name: "Q3 report.pdf",
  type: "application/pdf",
  bytes: new Uint8Array([
    ...Buffer.from("%PDF-1.4\r\n--formdata-undici\r\n"),
    ...Array.from({ length: 4096 }, (_, i) => (i * 11) % 256),
  ]),
};

let discord: FakeDiscord;
let client: Client;
let outbound: DiscordOutbound;
beforeEach(async () => {
  discord = await startFakeDiscord({
    guilds: [
      {
        id: GUILD,
        name: "Fake Guild",
        channels: [
          { id: GENERAL, name: "general" },
          { id: THREAD, name: "reports", type: 11, parentId: GENERAL },
          {
            id: LOCKED,
            name: "announcements",
            overwrites: [{ id: GUILD, type: 0, allow: "0", deny: ATTACH_FILES }],
          },
        ],
      },
    ],
  });
  // A worker's Discord: REST with the token, no gateway session.
  client = new Client({ intents: [], rest: { api: discord.apiUrl } });
  client.rest.setToken(discord.token);
  outbound = new DiscordOutbound(client, discord.apiUrl);
});
afterEach(async () => {
  await client.destroy();
  await discord.close();
});

const target = (channel: string = GENERAL, thread?: string, replyTo?: string) => ({
  platform: "discord",
  workspace: GUILD,
  channel,
  conversation: thread ?? channel,
  ...(thread ? { thread } : {}),
  ...(replyTo ? { replyTo } : {}),
});

const uploads = () =>
  discord.calls.filter((c) => c.method === "POST" && /\/messages$/.test(c.path) && c.files);

describe("Discord file uploads through discord.js REST", () => {
  it("posts the file in the thread as a reply, the bytes intact behind the attachment URL", async () => {
    // The person's message reached the gateway process; this worker only replies to its id.
    const asked = { id: "1400000000000000001" };
    const ref = await outbound.upload(target(GENERAL, THREAD, asked.id), REPORT, {
      idempotencyKey: "turn-1:file:0",
    });
    const [posted, ...more] = discord.messages;
    expect(more).toHaveLength(0);
    expect(posted).toMatchObject({
      id: ref,
      channel_id: THREAD,
      message_reference: { message_id: asked.id },
      attachments: [
        {
          filename: "Q3 report.pdf",
          size: REPORT.bytes.byteLength,
          content_type: "application/pdf",
        },
      ],
    });
    const [attachment] = (posted?.attachments ?? []) as { url: string }[];
    const served = await fetch(attachment?.url ?? "");
    expect(sha(new Uint8Array(await served.arrayBuffer()))).toBe(sha(REPORT.bytes));
    // One multipart request: the JSON payload beside files[0].
    expect(uploads()[0]?.files?.map((f) => f.field)).toEqual(["files[0]"]);
    expect(uploads()[0]?.body).toMatchObject({ enforce_nonce: true, nonce: expect.any(String) });
  });

  it("lands a repeated upload with the same key once, by its nonce", async () => {
    const first = await outbound.upload(target(), REPORT, { idempotencyKey: "turn-2:file:0" });
    const again = await outbound.upload(target(), REPORT, {
      idempotencyKey: "turn-2:file:0",
      mayExist: true,
    });
    expect(again).toBe(first);
    expect(uploads()).toHaveLength(2);
    expect(discord.messages).toHaveLength(1);
    // Another file of the same answer is its own message.
    await outbound.upload(target(), REPORT, { idempotencyKey: "turn-2:file:1" });
    expect(discord.messages).toHaveLength(2);
  });

  it("names Discord's refusal, and the fix, where the bot may not attach files", async () => {
    const refused = outbound.upload(target(LOCKED), REPORT, { idempotencyKey: "turn-3:file:0" });
    await expect(refused).rejects.toBeInstanceOf(UploadRefusedError);
    await expect(refused).rejects.toThrow(
      /Discord refused the file "Q3 report\.pdf": Missing Permissions \(HTTP 403, code 50013\)\. Give the bot Attach Files/,
    );
    await expect(refused).rejects.not.toThrow(discord.token);
    expect(discord.messages).toHaveLength(0);
  });
});
