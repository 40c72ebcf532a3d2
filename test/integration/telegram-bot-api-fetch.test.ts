import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Api, HttpError, InputFile } from "grammy";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isTransientFailure } from "../../src/core/transient-failure.ts";
import { telegramClientOptions } from "../../src/platforms/telegram/api.ts";
import {
  FAKE_TELEGRAM,
  type FakeTelegram,
  startFakeTelegram,
} from "../../src/testing/fakes/telegram-api.ts";
import { until } from "../support/channels.ts";

// The pooled fetch every grammY client of Switchyard calls with (bot-api-fetch.ts), against
// the fake Bot API over real HTTP: what grammY's default fetch did must still hold.

const ALICE = 5001;
const FIRST_CALL = fileURLToPath(new URL("../support/telegram-first-call.ts", import.meta.url));
const run = promisify(execFile);
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let telegram: FakeTelegram;
beforeEach(async () => {
  telegram = await startFakeTelegram();
  telegram.addChat({ id: ALICE, type: "private", title: "Alice" });
});
afterEach(async () => {
  await telegram.close();
});

const apiOf = (extra: { timeoutSeconds?: number } = {}) =>
  new Api(telegram.token, { ...telegramClientOptions(telegram.apiRoot), ...extra });

/** The bytes Telegram holds for a file_id, fetched as the Bot API serves them. */
async function stored(api: Api, fileId: string): Promise<Uint8Array> {
  const file = await api.getFile(fileId);
  const response = await fetch(`${telegram.apiRoot}/file/bot${telegram.token}/${file.file_path}`);
  return new Uint8Array(await response.arrayBuffer());
}

describe("the Bot API fetch of grammY's clients", () => {
  it("delivers a document streamed from an async source whole, in a multipart body", async () => {
    const api = apiOf();
    // Chunks of uneven sizes, handed out one at a time: grammY streams them into the body.
    const chunks = [7, 65_536, 1, 300_000, 4_093].map((size) => randomBytes(size));
    async function* source() {
      for (const chunk of chunks) yield new Uint8Array(chunk);
    }
    const sent = await api.sendDocument(ALICE, new InputFile(source(), "log.bin"), {
      caption: "the whole log",
    });
    expect(telegram.callsTo("sendDocument").map((call) => call.params.caption)).toEqual([
      "the whole log",
    ]);
    expect(sent.document?.file_name).toBe("log.bin");
    const bytes = await stored(api, sent.document?.file_id ?? "");
    expect(sha(bytes)).toBe(sha(Buffer.concat(chunks)));
  });

  it("sends a photo from a Buffer as a photo", async () => {
    const api = apiOf();
    const png = await sharp({
      create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer();
    const sent = await api.sendPhoto(ALICE, new InputFile(png, "chart.png"));
    const photo = sent.photo?.at(-1);
    expect(photo).toMatchObject({ width: 64, height: 48 });
    expect(sha(await stored(api, photo?.file_id ?? ""))).toBe(sha(png));
  });

  it("ends a held long poll when its signal aborts, and the next call still goes through", async () => {
    const api = apiOf();
    const controller = new AbortController();
    const poll = api.getUpdates(
      { timeout: 30 },
      // grammY types its signal with the abort-controller shim's AbortSignal, as polling.ts passes it.
      controller.signal as Parameters<Api["getUpdates"]>[1],
    );
    await until(() => (telegram.callsTo("getUpdates").length === 1 ? true : undefined));
    controller.abort();
    await expect(poll).rejects.toBeInstanceOf(HttpError);
    telegram.userSends({ chat: ALICE, from: { id: ALICE, is_bot: false, first_name: "Alice" } });
    const updates = await api.getUpdates({ timeout: 30 });
    expect(updates.map((update) => update.message?.chat.id)).toEqual([ALICE]);
  });

  it("ends a call the Bot API holds past grammY's timeout with grammY's timeout error", async () => {
    const api = apiOf({ timeoutSeconds: 1 });
    const failure = await api.getUpdates({ timeout: 30 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpError);
    expect(String((failure as HttpError).error)).toMatch(/timed out after 1 seconds/);
  });

  it("keeps other calls going while a long poll holds its connection", async () => {
    const api = apiOf();
    const poll = api.getUpdates({ timeout: 30 });
    await until(() => (telegram.callsTo("getUpdates").length === 1 ? true : undefined));
    // More at once than the pool keeps connections for: the rest wait for one, none fails.
    const sends = Array.from({ length: 300 }, () => api.sendChatAction(ALICE, "typing"));
    expect(await Promise.all(sends)).toEqual(Array(300).fill(true));
    telegram.userSends({ chat: ALICE, from: { id: ALICE, is_bot: false, first_name: "Alice" } });
    expect(await poll).toHaveLength(1);
  });

  it("leaves the process's global dispatcher, which discord.js and Node's fetch send through, unset", async () => {
    const { stdout } = await run(process.execPath, [
      "--import",
      "tsx",
      FIRST_CALL,
      telegram.apiRoot,
      telegram.token,
    ]);
    expect(JSON.parse(stdout)).toEqual({
      before: [false, false],
      after: [false, false],
      username: FAKE_TELEGRAM.bot.username,
    });
  });

  it("fails a refused connection as grammY's HttpError, a failure that passes", async () => {
    const closed = await freePort();
    const api = new Api(telegram.token, telegramClientOptions(`http://127.0.0.1:${closed}`));
    const failure = await api.getMe().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpError);
    expect((failure as HttpError).message).not.toContain(telegram.token);
    expect(isTransientFailure(failure)).toBe(true);
  });
});

/** A port nothing listens on: one the system gave out and took back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}
