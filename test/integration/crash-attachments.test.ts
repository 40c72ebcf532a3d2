import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ALICE } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { makeOggOpus } from "../support/files.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";

describe("a worker killed after it fetched a voice note, before the model answered", () => {
  let fake: FakeOpenAI;
  let telegram: FakeTelegram;
  let crash: CrashWorkers;
  let dir: string;
  let asked = 0;

  beforeAll(async () => {
    // The first model request hangs (its worker is killed meanwhile); the resumed turn's is answered.
    fake = await startFakeOpenAI({
      responder: () => {
        asked++;
        return asked === 1 ? { content: "too late", delayMs: 60_000 } : { content: "Heard you." };
      },
    });
    telegram = await startFakeTelegram();
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    dir = mkdtempSync(join(tmpdir(), "sy-attach-"));
    const config = join(dir, "switchyard.yaml");
    writeFileSync(config, `transcription:\n  base_url: ${fake.url}\n  key_env: OPENAI_API_KEY\n`);
    crash = await startCrashWorkers(fake, uniquePrefix("crash-attach"), {
      SWITCHYARD_CONFIG: config,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
    });
  }, 120_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("resumes on another worker without a second download or transcription, with the same request", async () => {
    const ogg = makeOggOpus();
    const file = telegram.addFile(ogg, "voice.oga");
    const sent = telegram.userSends({ chat: ALICE.id, from: ALICE, extra: {} }).message;
    const chat = String(ALICE.id);
    const message: InboundMessage = {
      platform: "telegram",
      workspace: chat,
      channel: chat,
      conversation: chat,
      user: chat,
      text: "",
      attachments: [
        {
          ref: file.file_id,
          name: "voice-note.ogg",
          mimeType: "audio/ogg",
          size: ogg.byteLength,
          voice: true,
        },
      ],
      eventId: `${chat}:${sent?.message_id}`,
      messageRef: String(sent?.message_id),
      time: Date.now(),
    };
    const { redis, store } = crash;
    await crash.enqueue(message);

    await until(() => (asked >= 1 ? true : undefined), 30_000);
    // The turn recorded what it fetched before it asked the model (after the answer, finishing the turn drops the checkpoint).
    const checkpoint = JSON.parse(
      (await redis.get(store.keys.conversation(message).checkpoint)) ?? "{}",
    );
    expect(checkpoint.attachments).toEqual([
      {
        ref: file.file_id,
        name: "voice-note.ogg",
        outcome: "transcript",
        type: "audio/ogg",
        bytes: ogg.byteLength,
      },
    ]);
    await crash.killLeaseHolder(message);
    const answer = await until(
      () => telegram.botMessages(ALICE.id).find((m) => m.text === "Heard you."),
      30_000,
    );
    expect(answer.reply_to_message?.message_id).toBe(sent?.message_id);

    expect(telegram.fileDownloads).toHaveLength(1);
    expect(fake.transcriptions).toHaveLength(1);
    const userContents = fake.requests.map(
      (r: RecordedRequest) =>
        r.body.messages.findLast((m: { role: string }) => m.role === "user").content,
    );
    expect(userContents).toHaveLength(2);
    expect(userContents[1]).toEqual(userContents[0]);
    expect(userContents[0]).toContain(`a voice note of ${ogg.byteLength} bytes, heard`);
  }, 90_000);
});
