import { describe, expect, it } from "vitest";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ALICE } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { REDIS_URL } from "../support/redis.ts";
import { runToExit, useStartCommand } from "../support/start-command.ts";
import { freePort } from "../support/switchyard-process.ts";

const ANSWER = "Hi from the real process.";
const bot = useStartCommand();

/** Runs `switchyard start` with the fake Telegram and model; resolves with its stderr so far once channels run. */
async function run(telegram: FakeTelegram, env: Record<string, string>): Promise<() => string> {
  const { logs } = await bot.start(
    { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: `${telegram.apiRoot}/`, ...env },
    ANSWER,
  );
  return logs;
}

/** The bot's messages to Alice once the answer is whole (the process streams it by edits). */
async function answerIn(telegram: FakeTelegram, expected: string): Promise<string[]> {
  const until = Date.now() + 15_000;
  let shown: string[] = [];
  while (Date.now() < until) {
    shown = telegram.botMessages(ALICE.id).map((m) => m.text ?? "");
    if (shown.includes(expected)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return shown;
}

describe("switchyard start with TELEGRAM_BOT_TOKEN", () => {
  it("runs the Telegram channel by long polling and answers a private message, never logging the token", async () => {
    const telegram = await startFakeTelegram();
    bot.cleanup(() => telegram.close());
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    const logs = await run(telegram, {});
    expect(logs()).toContain('"platform":"telegram"');
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    expect(await answerIn(telegram, ANSWER)).toEqual([ANSWER]);
    expect(telegram.callsTo("getUpdates").length).toBeGreaterThan(0);
    expect(logs()).not.toContain(telegram.token);
  }, 60_000);

  it("takes updates by webhook on SWITCHYARD_HTTP_PORT with TELEGRAM_WEBHOOK_URL and its secret", async () => {
    const telegram = await startFakeTelegram();
    bot.cleanup(() => telegram.close());
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    const port = await freePort();
    const logs = await run(telegram, {
      SWITCHYARD_HTTP_PORT: String(port),
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
      TELEGRAM_WEBHOOK_SECRET: "start-secret",
    });
    expect(logs()).toContain('"platform":"telegram"');
    expect(telegram.webhook).toEqual({
      url: `http://127.0.0.1:${port}/telegram`,
      secretToken: "start-secret",
    });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    expect(await answerIn(telegram, ANSWER)).toEqual([ANSWER]);
    expect(telegram.callsTo("getUpdates")).toHaveLength(0);
    expect(logs()).not.toContain("start-secret");
  }, 60_000);

  it("takes messages before the command menu is set, and sets it once Telegram's wait is over", async () => {
    const telegram = await startFakeTelegram();
    bot.cleanup(() => telegram.close());
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    telegram.failNext("setMyCommands", {
      code: 429,
      description: "Too Many Requests: retry after 8",
      retryAfter: 8,
    });
    await run(telegram, {});
    // Started while Telegram still has the bot wait before the menu: readiness never waits on it.
    expect(telegram.commandsFor()).toEqual([]);
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    expect(await answerIn(telegram, ANSWER)).toEqual([ANSWER]);
    const menu = await until(
      () => (telegram.commandsFor().length > 0 ? telegram.commandsFor() : undefined),
      30_000,
    );
    expect(menu.map((c) => c.command)).toContain("skills");
  }, 60_000);

  it("logs a command menu Telegram refuses, and answers all the same", async () => {
    const telegram = await startFakeTelegram();
    bot.cleanup(() => telegram.close());
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    telegram.failNext("setMyCommands", {
      code: 400,
      description: "Bad Request: BOT_COMMAND_INVALID",
    });
    const logs = await run(telegram, {});
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello" });
    expect(await answerIn(telegram, ANSWER)).toEqual([ANSWER]);
    expect(logs()).toContain("the Telegram command menu could not be set");
    expect(logs()).toContain("BOT_COMMAND_INVALID");
    expect(telegram.commandsFor()).toEqual([]);
  }, 60_000);

  it("stops before starting anything when the webhook has no secret", async () => {
    const telegram = await startFakeTelegram();
    bot.cleanup(() => telegram.close());
    const result = await runToExit(["start"], {
      ...process.env,
      REDIS_URL,
      SWITCHYARD_METRICS_PORT: "0",
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("TELEGRAM_WEBHOOK_SECRET");
    expect(telegram.calls).toHaveLength(0);
  }, 30_000);
});
