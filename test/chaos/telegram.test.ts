import { afterEach, describe, expect, it } from "vitest";
import { CHAOS } from "../support/chaos-knobs.ts";
import { CLEAN_VERDICT, verdict } from "../support/chaos-ledger.ts";
import { ChaosScenario } from "../support/chaos-scenario.ts";
import {
  TELEGRAM_DOUBLES_PER_WINDOW_KILL,
  type TelegramChaos,
  telegramChaos,
} from "../support/chaos-telegram.ts";
import { REDIS_URL } from "../support/redis.ts";

let scenario: ChaosScenario | undefined;
let telegram: TelegramChaos | undefined;
afterEach(async () => {
  await scenario?.close();
  await telegram?.close();
  scenario = undefined;
  telegram = undefined;
});

describe("Telegram under a kill -9 loop", () => {
  it("answers every message once, in order, while workers die mid-stream and mid-send (a double only inside a send's round trip)", async () => {
    telegram = await telegramChaos(CHAOS.platformDelayMs);
    scenario = new ChaosScenario(telegram, {
      name: "telegram-kill",
      redisUrl: REDIS_URL,
      messages: CHAOS.messages,
      maxKills: 8,
    });
    await scenario.start();
    const { counts, line, inWindow } = await scenario.run();
    const why = `${line}\n${counts.details.join("\n")}`;
    expect(counts.sent).toBe(CHAOS.messages);
    // Each double (and its stuck first copy) must be explained by a kill inside a send's window.
    expect(verdict(counts, TELEGRAM_DOUBLES_PER_WINDOW_KILL * inWindow), why).toEqual(
      CLEAN_VERDICT,
    );
  }, 150_000);
});
