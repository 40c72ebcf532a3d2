import { createHash } from "node:crypto";
import { WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SlackOutbound } from "../../src/platforms/slack/outbound.ts";
import { UploadRefusedError } from "../../src/platforms/upload-error.ts";
import type { OutgoingFile } from "../../src/ports/outbound.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";

const HUMAN = "U0HUMAN";
const BOT = FAKE_SLACK.botUserId;
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Bytes no text encoding survives: every byte value, CR LF and a fake boundary among them. */
const REPORT: OutgoingFile = {
  name: "report.pdf",
  type: "application/pdf",
  bytes: new Uint8Array([
    ...Buffer.from("%PDF-1.4\r\n--boundary\r\n"),
    ...Array.from({ length: 4096 }, (_, i) => (i * 7) % 256),
  ]),
};

let slack: FakeSlackApi;
let outbound: SlackOutbound;
let thread: string;
beforeEach(async () => {
  slack = await startFakeSlackApi({ users: { [HUMAN]: { name: "human" } } });
  slack.channels.set("C0HERE", { name: "here", members: [HUMAN, BOT] });
  slack.channels.set("C0ELSEWHERE", { name: "elsewhere", members: [HUMAN] });
  thread = slack.addMessage({ channel: "C0HERE", user: HUMAN, text: "the report?" }).ts;
  const client = new WebClient(FAKE_SLACK.botToken, {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
  });
  outbound = new SlackOutbound(client);
});
afterEach(async () => {
  await slack.close();
});

const target = (channel = "C0HERE") => ({
  platform: "slack",
  workspace: FAKE_SLACK.teamId,
  channel,
  conversation: `${channel}:${thread}`,
  thread,
  replyTo: thread,
});

/** The bot's messages in the thread that carry files, as conversations.replies lists them. */
async function fileMessages() {
  const client = new WebClient(FAKE_SLACK.botToken, { slackApiUrl: slack.url });
  const replies = await client.conversations.replies({ channel: "C0HERE", ts: thread });
  return (replies.messages ?? []).filter((m) => m.user === BOT && (m.files?.length ?? 0) > 0);
}

describe("Slack file uploads through the WebClient's filesUploadV2", () => {
  it("shares the bytes intact in the answer's thread, the ref being the file id", async () => {
    const ref = await outbound.upload(target(), REPORT, { idempotencyKey: "turn-1:file:0" });

    const stored = slack.files.get(ref);
    expect(stored && sha(stored.content)).toBe(sha(REPORT.bytes));
    expect(stored).toMatchObject({ name: "report.pdf", mimetype: "application/pdf" });
    const [shared, ...more] = await fileMessages();
    expect(more).toHaveLength(0);
    expect(shared).toMatchObject({ thread_ts: thread, files: [{ id: ref, name: "report.pdf" }] });
    expect(shared?.files?.[0]?.size).toBe(REPORT.bytes.byteLength);
    // The three steps, in Slack's order (the bytes go to the upload URL between them).
    expect(slack.calls.map((c) => c.method).slice(0, 2)).toEqual([
      "files.getUploadURLExternal",
      "files.completeUploadExternal",
    ]);
    expect(slack.callsTo("files.completeUploadExternal")[0]?.args).toMatchObject({
      channel_id: "C0HERE",
      thread_ts: thread,
    });
    // The file downloads with the bot token as what was sent.
    const download = await fetch(stored?.url_private_download ?? "", {
      headers: { authorization: `Bearer ${FAKE_SLACK.botToken}` },
    });
    expect(sha(new Uint8Array(await download.arrayBuffer()))).toBe(sha(REPORT.bytes));
  });

  it("lands a repeated upload with the same key once when it may exist", async () => {
    const first = await outbound.upload(target(), REPORT, { idempotencyKey: "turn-2:file:0" });
    const again = await outbound.upload(target(), REPORT, {
      idempotencyKey: "turn-2:file:0",
      mayExist: true,
    });
    expect(again).toBe(first);
    expect(await fileMessages()).toHaveLength(1);
    expect(slack.callsTo("files.getUploadURLExternal")).toHaveLength(1);
  });

  it("uploads again when the thread holds no file of that name and size", async () => {
    await outbound.upload(target(), REPORT, { idempotencyKey: "turn-3:file:0" });
    const changed = { ...REPORT, bytes: REPORT.bytes.slice(1) };
    await outbound.upload(target(), changed, { idempotencyKey: "turn-3:file:1", mayExist: true });
    expect(await fileMessages()).toHaveLength(2);
  });

  it("shares in a DM answered in place, and finds it there on a resumed delivery", async () => {
    const asked = slack.addMessage({ channel: "D0HUMAN", user: HUMAN, text: "chart please" });
    const dm = {
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "D0HUMAN",
      conversation: "D0HUMAN",
      replyTo: asked.ts,
    };
    const first = await outbound.upload(dm, REPORT, { idempotencyKey: "turn-5:file:0" });
    const again = await outbound.upload(dm, REPORT, {
      idempotencyKey: "turn-5:file:0",
      mayExist: true,
    });
    expect(again).toBe(first);
    const shared = slack.messages.filter((m) => m.channel === "D0HUMAN" && m.files);
    expect(shared).toHaveLength(1);
    expect(shared[0]?.thread_ts).toBeUndefined();
    expect(slack.callsTo("conversations.history")).toHaveLength(1);
  });

  it("names Slack's refusal, and the fix, when the bot is not in the channel", async () => {
    const refused = outbound.upload(target("C0ELSEWHERE"), REPORT, {
      idempotencyKey: "turn-4:file:0",
    });
    await expect(refused).rejects.toBeInstanceOf(UploadRefusedError);
    await expect(refused).rejects.toThrow(/Slack refused the file "report\.pdf": not_in_channel/);
    await expect(refused).rejects.toThrow(/invite/i);
    await expect(refused).rejects.not.toThrow(FAKE_SLACK.botToken);
    expect(slack.messages.filter((m) => m.files)).toHaveLength(0);
  });
});
