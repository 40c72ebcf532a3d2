import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { GAVE_UP } from "../../src/turn/resume.ts";
import { ALICE } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";
import { startWorkerProcess } from "../support/workers.ts";

const CHAT = String(ALICE.id);
const address = { platform: "telegram", workspace: CHAT, channel: CHAT, conversation: CHAT };
const ANSWER = "Here I am.";

/** A message of Alice's as the Telegram ingress queues it. */
function fromAlice(
  telegram: FakeTelegram,
  text: string,
  attachments: InboundMessage["attachments"] = [],
) {
  const sent = telegram.userSends({ chat: ALICE.id, from: ALICE, text }).message;
  const message: InboundMessage = {
    ...address,
    user: CHAT,
    text,
    attachments,
    eventId: `${CHAT}:${sent?.message_id}`,
    messageRef: String(sent?.message_id),
    time: Date.now(),
  };
  return { message, messageId: sent?.message_id };
}

describe("a message whose file kills the worker reading it, again and again", () => {
  let fake: FakeOpenAI;
  let telegram: FakeTelegram;
  let crash: CrashWorkers;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ responder: () => ({ content: ANSWER }) });
    telegram = await startFakeTelegram();
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    // The download's time cap is far away: a worker is killed in the download, never let out of it.
    dir = mkdtempSync(join(tmpdir(), "sy-poison-"));
    const config = join(dir, "switchyard.yaml");
    writeFileSync(config, "attachments:\n  fetch_ms: 600000\n");
    crash = await startCrashWorkers(fake, uniquePrefix("crash-poison"), {
      SWITCHYARD_CONFIG: config,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
    });
  }, 120_000);

  afterAll(async () => {
    // Killed, not stopped: a worker still in the held download (when the test failed) would wait on it.
    await crash?.close("SIGKILL");
    await fake?.close();
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is given up after three deaths with one apology, and the next message is answered", async () => {
    // The file's download never ends: each worker that reads it is killed while it does.
    const bytes = new TextEncoder().encode("quarterly figures\n".repeat(100));
    const file = telegram.addFile(bytes, "report.txt", { held: true });
    const poison = fromAlice(telegram, "see the report", [
      { ref: file.file_id, name: "report.txt", mimeType: "text/plain", size: bytes.byteLength },
    ]);
    await crash.enqueue(poison.message);
    const killedAt: number[] = [];
    for (let kill = 1; kill <= 3; kill++) {
      await until(() => (telegram.fileDownloads.length >= kill ? true : undefined), 60_000).catch(
        (error: Error) => {
          throw new Error(
            `${error.message} for download ${kill}\n${crash.workers.map((w) => w.logs()).join("\n")}`,
          );
        },
      );
      const victim = await crash.killLeaseHolder(address);
      killedAt.push(Date.now());
      // The survivor takes the message over meanwhile: the takeovers timed below are the fleet's.
      crash.workers.splice(crash.workers.indexOf(victim), 1, await startWorkerProcess(crash.env));
    }
    const apology = await until(() => {
      if (telegram.fileDownloads.length > 3) {
        throw new Error(
          `the message was picked up a fourth time and its file read again instead of given up\n${crash.workers.map((w) => w.logs()).join("\n")}`,
        );
      }
      return telegram.botMessages(ALICE.id).find((m) => m.text === GAVE_UP);
    }, 30_000);
    expect(apology.reply_to_message?.message_id).toBe(poison.messageId);
    // Each pickup asks getFile before it downloads: the fleet's time from a death to the next pickup.
    const pickedAt = telegram.callsTo("getFile").map((c) => c.at);
    const apologisedAt =
      telegram.callsTo("sendMessage").find((c) => c.params.text === GAVE_UP)?.at ?? 0;
    const takeovers = [1, 2].map((k) => (pickedAt[k] ?? 0) - (killedAt[k - 1] ?? 0));
    const lastToApology = apologisedAt - (killedAt[2] ?? 0);
    console.log(
      `poison message: first pickup to apology ${apologisedAt - (pickedAt[0] ?? 0)} ms wall; ` +
        `death to next pickup ${takeovers.join(" and ")} ms, third death to apology ${lastToApology} ms ` +
        `(${takeovers.reduce((a, b) => a + b, lastToApology)} ms of the fleet's own, besides the time each worker ran before it died)`,
    );
    expect(
      crash.workers.some((w) =>
        w.logs().includes("giving up on messages whose turn failed repeatedly before it began"),
      ),
    ).toBe(true);

    // The conversation moved on: the next message is answered as usual, and the apology was the only one.
    const later = fromAlice(telegram, "are you there?");
    await crash.enqueue(later.message);
    const answer = await until(
      () => telegram.botMessages(ALICE.id).find((m) => m.text === ANSWER),
      30_000,
    );
    expect(answer.reply_to_message?.message_id).toBe(later.messageId);
    expect(telegram.botMessages(ALICE.id).map((m) => m.text)).toEqual([GAVE_UP, ANSWER]);
    expect(telegram.fileDownloads).toHaveLength(3);
    // The model heard only the later message: the messages given up never joined the history.
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]?.body.messages)).not.toContain("see the report");
    const inbox = new Inbox(crash.redis, crash.store.keys);
    const deadline = Date.now() + 15_000;
    while (!(await inbox.idle(address)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await inbox.idle(address)).toBe(true);
  }, 300_000);
});
