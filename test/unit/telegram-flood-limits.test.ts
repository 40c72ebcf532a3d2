import { describe, expect, it } from "vitest";
import { FloodLedger, TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";
import { BotApiError } from "../../src/testing/fakes/telegram-updates.ts";

/** The 429 a call got, or undefined when it went through. */
function refusal(ledger: FloodLedger, method: string, chat: number, at: number) {
  try {
    ledger.check(method, chat, at);
    return undefined;
  } catch (error) {
    if (!(error instanceof BotApiError)) throw error;
    return { code: error.code, retryAfter: error.parameters?.retry_after };
  }
}

describe("the fake Telegram's flood limits", () => {
  it("lets a chat's short burst through, then answers 429 with retry_after until the pace allows another", () => {
    const ledger = new FloodLedger(TELEGRAM_LIMITS);
    for (const at of [0, 10, 20]) expect(refusal(ledger, "editMessageText", 1, at)).toBeUndefined();
    expect(refusal(ledger, "editMessageText", 1, 30)).toEqual({ code: 429, retryAfter: 1 });
    // Another chat is not held up by the first one's wait.
    expect(refusal(ledger, "sendMessage", 2, 30)).toBeUndefined();
    expect(refusal(ledger, "editMessageText", 1, 1_030)).toBeUndefined();
  });

  it("records a call made to a chat during its wait as not honoured, and one after it as honoured", () => {
    const ledger = new FloodLedger(TELEGRAM_LIMITS);
    for (const at of [0, 1, 2]) ledger.check("sendMessageDraft", 1, at);
    expect(refusal(ledger, "sendMessageDraft", 1, 3)).toEqual({ code: 429, retryAfter: 1 });
    // Too early: refused again, and told to wait from now.
    expect(refusal(ledger, "sendMessageDraft", 1, 500)).toEqual({ code: 429, retryAfter: 1 });
    expect(ledger.early).toHaveLength(1);
    expect(refusal(ledger, "sendMessageDraft", 1, 1_500)).toBeUndefined();
    expect(ledger.early).toHaveLength(1);
    expect(ledger.refusals.map((r) => r.at)).toEqual([3, 500]);
  });

  it("holds the bot to thirty new messages a second across chats, and leaves edits to the chats' limits", () => {
    const ledger = new FloodLedger(TELEGRAM_LIMITS);
    for (let chat = 0; chat < 30; chat++) {
      expect(refusal(ledger, "sendMessage", chat, 0)).toBeUndefined();
    }
    expect(refusal(ledger, "sendMessage", 30, 0)).toEqual({ code: 429, retryAfter: 1 });
    expect(refusal(ledger, "editMessageText", 31, 0)).toBeUndefined();
    expect(refusal(ledger, "sendMessage", 32, 40)).toBeUndefined();
  });

  it("does not count calls that show nothing in a chat", () => {
    const ledger = new FloodLedger(TELEGRAM_LIMITS);
    for (let i = 0; i < 100; i++) expect(refusal(ledger, "sendChatAction", 1, i)).toBeUndefined();
    expect(refusal(ledger, "getUpdates", 1, 0)).toBeUndefined();
  });
});
