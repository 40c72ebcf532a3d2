import { describe, expect, it } from "vitest";
import { DEFAULT_TELEGRAM } from "../../src/platforms/telegram/config-section.ts";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";
import { useTelegram } from "../fakes/telegram-setup.ts";
import { answeredOnce, crowd, everyoneAsks, togetherResponder } from "../support/telegram-crowd.ts";

const { start } = useTelegram();

/** Eighty people, each in a private chat with the bot, all writing at once. */
const PEOPLE = crowd(80, 7_001);

const answerFor = (id: number) =>
  `Answer for ${id}: ${Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ")}`;

/**
 * Each person's own text once every person has asked, all streams alike, so
 * every answer ends at about the same moment: eighty final messages at once,
 * more than the bot may send in a second.
 */
const together = () =>
  togetherResponder(PEOPLE.length, (id) => ({
    content: answerFor(id),
    contentChunkChars: 12,
    chunkDelayMs: 40,
  }));

describe("Telegram's flood limits with many answers finishing at once", () => {
  for (const streaming of ["native", "edit"] as const) {
    it(`answers ${PEOPLE.length} private chats at once (streaming: ${streaming}) completely and once, no call during an announced wait, no turn failed`, async () => {
      const telegram = await startFakeTelegram({ limits: TELEGRAM_LIMITS });
      const failures: string[] = [];
      const { pipe } = await start({
        telegram,
        streamEditMs: 300,
        channel: { settings: () => ({ ...DEFAULT_TELEGRAM, streaming }) },
        pipeline: {
          concurrency: PEOPLE.length,
          // Every answer waits for all to have asked: all turns must be in flight at once, which
          // back-pressure on a loaded machine would rightly refuse (it has tests of its own).
          maxEventLoopDelayMs: 0,
          logger: { warn: (message) => failures.push(message) },
        },
      });
      pipe.fake.setResponder(together());
      everyoneAsks(telegram, PEOPLE);
      await answeredOnce(telegram, PEOPLE, answerFor);
      // The bot kept Telegram's pace itself: no 429 at all, so no call during a wait either.
      expect(telegram.flood?.refusals).toEqual([]);
      expect(telegram.flood?.early).toEqual([]);
      // One model request per person: no turn ran twice.
      expect(pipe.fake.requests).toHaveLength(PEOPLE.length);
      expect(failures.filter((f) => /turn failed|may appear twice/.test(f))).toEqual([]);
    }, 120_000);
  }
});
