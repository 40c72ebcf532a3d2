import type { User } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import { type RecordedRequest, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";
import { until } from "../support/channels.ts";
import { connectRedis, deleteKeysUnder, REDIS_URL, uniquePrefix } from "../support/redis.ts";
import { type SwitchyardProcess, startSwitchyardProcess } from "../support/switchyard-process.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const answerFor = (chat: number) => `Answer for ${chat}.`;

function person(chat: number): User {
  return { id: chat, is_bot: false, first_name: `Person ${chat}` };
}

/**
 * Answers each person once every person has asked, so every answer ends at
 * about the same moment, on whichever process runs the turn.
 */
function togetherResponder(people: number) {
  let asked = 0;
  let everyoneAsked: () => void = () => {};
  const everyone = new Promise<void>((resolve) => {
    everyoneAsked = resolve;
  });
  return async (request: RecordedRequest) => {
    if (++asked === people) everyoneAsked();
    await everyone;
    const raw = JSON.stringify(request.body?.messages ?? []);
    return { content: answerFor(Number(/person (\d+) asks/.exec(raw)?.[1] ?? 0)) };
  };
}

/**
 * Two processes that run turns, each with its own model name so the fake
 * model tells whose turn a request was: `--role all` (which also takes the
 * updates) and `--role worker`, on one Redis, as on two machines.
 */
async function startTwo(telegram: FakeTelegram, modelUrl: string) {
  const prefix = uniquePrefix("shared-pace");
  cleanups.push(async () => {
    const redis = connectRedis();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });
  const env = {
    REDIS_URL,
    SWITCHYARD_PREFIX: prefix,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: "test",
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: `${telegram.apiRoot}/`,
    // Half the people each: no answer ends before all have asked, so each process must run
    // its 60 at once. At the default (1,024) whichever took the queue first took most of it.
    SWITCHYARD_CONCURRENCY: "60",
  };
  const started: SwitchyardProcess[] = [];
  cleanups.push(async () => {
    for (const one of started) await one.stop();
  });
  const [all, worker] = await Promise.all([
    startSwitchyardProcess("all", { ...env, SWITCHYARD_MODEL: "model-a" }),
    startSwitchyardProcess("worker", { ...env, SWITCHYARD_MODEL: "model-b" }),
  ]);
  started.push(all, worker);
  return { all, worker };
}

describe("one Telegram bot's pace kept by two worker processes together", () => {
  it("answers 120 people whose answers all end at once from two processes, with no 429 and none lost or doubled", async () => {
    const chats = Array.from({ length: 120 }, (_, i) => 300_001 + i);
    const telegram = await startFakeTelegram({ limits: TELEGRAM_LIMITS });
    const openai = await startFakeOpenAI({ responder: togetherResponder(chats.length) });
    cleanups.push(
      () => telegram.close(),
      () => openai.close(),
    );
    await startTwo(telegram, openai.url);
    for (const chat of chats) telegram.addChat({ id: chat, type: "private", title: `P ${chat}` });
    for (const chat of chats) {
      telegram.userSends({ chat, from: person(chat), text: `person ${chat} asks` });
    }
    await until(
      () =>
        chats.every((chat) => telegram.botMessages(chat).some((m) => m.text === answerFor(chat))) ||
        undefined,
      60_000,
    );
    for (const chat of chats) {
      expect(telegram.botMessages(chat).map((m) => m.text)).toEqual([answerFor(chat)]);
    }
    // Both processes answered half: alone, each would send at 25 a second, 50 together.
    const byModel = (model: string) =>
      openai.requests.filter((r) => r.body?.model === model).length;
    expect(byModel("model-a")).toBe(60);
    expect(byModel("model-b")).toBe(60);
    expect(byModel("model-a") + byModel("model-b")).toBe(chats.length);
    // Together they kept Telegram's pace: no 429, so no call during a wait either.
    expect(telegram.flood?.refusals).toEqual([]);
    expect(telegram.flood?.early).toEqual([]);
    expect(telegram.flood?.paid).toEqual([]);
  }, 120_000);
});
