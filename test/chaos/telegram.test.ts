import { afterEach, describe, expect, it } from "vitest";
import { DOCX_TYPE } from "../../src/core/attachments/kind.ts";
import { CHAOS } from "../support/chaos-knobs.ts";
import { CLEAN_VERDICT, verdict } from "../support/chaos-ledger.ts";
import { tagOf } from "../support/chaos-model.ts";
import { ChaosScenario } from "../support/chaos-scenario.ts";
import {
  TELEGRAM_DOUBLES_PER_WINDOW_KILL,
  type TelegramChaos,
  telegramChaos,
} from "../support/chaos-telegram.ts";
import { zipBombDocx } from "../support/document-bombs.ts";
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
  it("answers every message once, in order, while workers die mid-stream and mid-send (a double only inside a send's round trip), a document bomb among them", async () => {
    // A DOCX that unzips to 300 MB behind a directory declaring 1 KB: read on a parser
    // thread and stopped at 50 MB, it is one more message with one answer.
    const bomb = { bytes: zipBombDocx(300_000_000, true), name: "bomb.docx", mime: DOCX_TYPE };
    const bombTag = tagOf(0, 2);
    telegram = await telegramChaos(CHAOS.platformDelayMs, {
      files: (tag) => (tag === bombTag ? bomb : undefined),
    });
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
    // The bomb was read, and its note reached the model, not a crash or a timeout.
    const asked = scenario.model.requests.map((r) => JSON.stringify(r.body?.messages ?? []));
    expect(asked.some((m) => m.includes("it expands past 50.0 MB unzipped"))).toBe(true);
    // Each double (and its stuck first copy) must be explained by a kill inside a send's window.
    expect(verdict(counts, TELEGRAM_DOUBLES_PER_WINDOW_KILL * inWindow), why).toEqual(
      CLEAN_VERDICT,
    );
    // Private chats stream as drafts (the default): no partial is ever a message.
    console.log(
      `telegram-kill (${CHAOS.telegramStreaming}): ${telegram.fake.drafts.length} sendMessageDraft, ${telegram.fake.callsTo("editMessageText").length} editMessageText`,
    );
    if (CHAOS.telegramStreaming === "native") {
      expect(telegram.fake.drafts.length).toBeGreaterThan(0);
    } else {
      expect(telegram.fake.drafts).toHaveLength(0);
    }
  }, 150_000);
});
