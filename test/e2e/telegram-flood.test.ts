import type { User } from "grammy/types";
import { describe, expect, it } from "vitest";
import { DEFAULT_TELEGRAM } from "../../src/platforms/telegram/config-section.ts";
import type { RecordedRequest } from "../../src/testing/fakes/openai-server.ts";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";
import { useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const { start } = useTelegram();

/** Eighty people, each in a private chat with the bot, all writing at once. */
const PEOPLE: User[] = Array.from({ length: 80 }, (_, i) => ({
  id: 7_001 + i,
  is_bot: false,
  first_name: `Person ${i}`,
}));

const answerFor = (id: number) =>
  `Answer for ${id}: ${Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ")}`;

/**
 * Answers each person with their own text once every person has asked, all
 * streams alike, so every answer ends at about the same moment: eighty final
 * messages at once, more than the bot may send in a second.
 */
function togetherResponder() {
  let asked = 0;
  let everyoneAsked: () => void = () => {};
  const everyone = new Promise<void>((resolve) => {
    everyoneAsked = resolve;
  });
  return async (request: RecordedRequest) => {
    if (++asked === PEOPLE.length) everyoneAsked();
    await everyone;
    const raw = JSON.stringify(request.body?.messages ?? []);
    const id = Number(/person (\d+) asks/.exec(raw)?.[1] ?? 0);
    return { content: answerFor(id), contentChunkChars: 12, chunkDelayMs: 40 };
  };
}

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
          logger: { warn: (message) => failures.push(message) },
        },
      });
      pipe.fake.setResponder(togetherResponder());
      for (const person of PEOPLE) {
        telegram.addChat({ id: person.id, type: "private", title: person.first_name });
        telegram.userSends({ chat: person.id, from: person, text: `person ${person.id} asks` });
      }
      await until(
        () =>
          PEOPLE.every((p) => telegram.botMessages(p.id).some((m) => m.text === answerFor(p.id))) ||
          undefined,
        60_000,
      );
      for (const person of PEOPLE) {
        expect(telegram.botMessages(person.id).map((m) => m.text)).toEqual([answerFor(person.id)]);
      }
      // The bot kept Telegram's pace itself: no 429 at all, so no call during a wait either.
      expect(telegram.flood?.refusals).toEqual([]);
      expect(telegram.flood?.early).toEqual([]);
      // One model request per person: no turn ran twice.
      expect(pipe.fake.requests).toHaveLength(PEOPLE.length);
      expect(failures.filter((f) => /turn failed|may appear twice/.test(f))).toEqual([]);
    }, 120_000);
  }
});
