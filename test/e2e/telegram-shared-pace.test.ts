import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";
import { connectRedis, deleteKeysUnder, REDIS_URL, uniquePrefix } from "../support/redis.ts";
import { type SwitchyardProcess, startSwitchyardProcess } from "../support/switchyard-process.ts";
import { answeredOnce, crowd, everyoneAsks, togetherResponder } from "../support/telegram-crowd.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const answerFor = (chat: number) => `Answer for ${chat}.`;

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
    // Every answer waits until all 120 have asked, so all 120 turns must be in flight at
    // once: a process strained by a loaded machine would rightly take no more and leave the
    // rest waiting forever. Back-pressure has tests of its own; this one is about the pace.
    SWITCHYARD_MAX_EVENT_LOOP_DELAY_MS: "0",
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
    const people = crowd(120, 300_001);
    const telegram = await startFakeTelegram({ limits: TELEGRAM_LIMITS });
    const openai = await startFakeOpenAI({
      responder: togetherResponder(people.length, (id) => ({ content: answerFor(id) })),
    });
    cleanups.push(
      () => telegram.close(),
      () => openai.close(),
    );
    await startTwo(telegram, openai.url);
    everyoneAsks(telegram, people);
    await answeredOnce(telegram, people, answerFor);
    // Both processes answered half: alone, each would send at 25 a second, 50 together.
    const byModel = (model: string) =>
      openai.requests.filter((r) => r.body?.model === model).length;
    expect(byModel("model-a")).toBe(60);
    expect(byModel("model-b")).toBe(60);
    expect(byModel("model-a") + byModel("model-b")).toBe(people.length);
    // Together they kept Telegram's pace: no 429, so no call during a wait either.
    expect(telegram.flood?.refusals).toEqual([]);
    expect(telegram.flood?.early).toEqual([]);
    expect(telegram.flood?.paid).toEqual([]);
  }, 120_000);
});
