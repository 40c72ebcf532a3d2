import { describe, expect, it } from "vitest";
import { DEFAULT_TELEGRAM } from "../../src/platforms/telegram/config-section.ts";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";
import { useTelegram } from "../fakes/telegram-setup.ts";
import { answeredOnce, crowd, everyoneAsks, togetherResponder } from "../support/telegram-crowd.ts";

const { start } = useTelegram();

/** Ninety people, each in a private chat with the bot: three seconds of the free pace. */
const PEOPLE = crowd(90, 8_001);

const answerFor = (id: number) => `Answer for ${id}.`;

/** Every person asks at once; resolves with the bot's answers as Telegram took them. */
async function theyAllAsk(paidBroadcast: boolean) {
  const telegram = await startFakeTelegram({ limits: TELEGRAM_LIMITS });
  const { pipe } = await start({
    telegram,
    channel: { settings: () => ({ ...DEFAULT_TELEGRAM, paidBroadcast }) },
    // Every answer waits for all to have asked: all turns must be in flight at once, which
    // back-pressure on a loaded machine would rightly refuse (it has tests of its own).
    pipeline: { concurrency: PEOPLE.length, maxEventLoopDelayMs: 0 },
  });
  pipe.fake.setResponder(togetherResponder(PEOPLE.length, (id) => ({ content: answerFor(id) })));
  everyoneAsks(telegram, PEOPLE);
  await answeredOnce(telegram, PEOPLE, answerFor);
  const answers = telegram.calls.filter((c) => c.method === "sendMessage" && c.status === 200);
  const times = answers.map((c) => c.at);
  return { telegram, answers, spanMs: Math.max(...times) - Math.min(...times) };
}

describe("Telegram paid broadcasts (telegram.paid_broadcast)", () => {
  it("sends the answers as paid broadcasts when on: faster than 30 a second, each one paid, no 429", async () => {
    const { telegram, answers, spanMs } = await theyAllAsk(true);
    expect(answers).toHaveLength(PEOPLE.length);
    expect(answers.every((c) => c.params.allow_paid_broadcast === true)).toBe(true);
    expect(telegram.flood?.paid).toHaveLength(PEOPLE.length);
    // 90 answers at the free 25 a second take 3.4 s; paid, well under one.
    expect(spanMs).toBeLessThan(1_000);
    expect(telegram.flood?.refusals).toEqual([]);
  }, 60_000);

  it("never sends allow_paid_broadcast when off, and keeps the free pace", async () => {
    const { telegram, answers, spanMs } = await theyAllAsk(false);
    expect(answers).toHaveLength(PEOPLE.length);
    expect(telegram.calls.some((c) => "allow_paid_broadcast" in c.params)).toBe(false);
    expect(telegram.flood?.paid).toEqual([]);
    expect(spanMs).toBeGreaterThanOrEqual(3_000);
    expect(telegram.flood?.refusals).toEqual([]);
  }, 60_000);
});
