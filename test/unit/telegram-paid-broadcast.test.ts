import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { telegramSection } from "../../src/platforms/telegram/config-section.ts";
import { FloodGate, STREAMING } from "../../src/platforms/telegram/flood-gate.ts";
import { telegramAccountOptions } from "../../src/platforms/telegram/settings.ts";
import { FloodLedger, TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";

/** A Bot API that answers every call, recording its payload and when it came. */
function fakeCall() {
  const calls: { method: string; payload: Record<string, unknown>; at: number }[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: grammY's transformer types its previous call per method.
  const prev: any = async (method: string, payload: Record<string, unknown>) => {
    calls.push({ method, payload, at: Date.now() });
    return { ok: true, result: { message_id: calls.length } };
  };
  return { prev, calls };
}

describe("paid broadcasts through the flood gate", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends new messages with allow_paid_broadcast at the paid pace while the setting is on, and none with it off", async () => {
    const gate = new FloodGate({ perSecond: 1, burst: 1 }, { perSecond: 100, burst: 10 });
    let paid = true;
    gate.payFor(() => paid);
    const { prev, calls } = fakeCall();
    const send = gate.transformer();
    const options = { chat_id: 1, text: "hi" };
    const sends = Array.from({ length: 20 }, (_, i) =>
      send(prev, "sendMessage", { ...options, chat_id: i }, undefined),
    );
    await vi.runAllTimersAsync();
    await Promise.all(sends);
    expect(calls.every((c) => c.payload.allow_paid_broadcast === true)).toBe(true);
    // 10 at once, then 100 a second: the free pace (1 a second) would take 19 s.
    const at = calls.map((c) => c.at - (calls[0]?.at ?? 0));
    expect(Math.max(...at)).toBeLessThanOrEqual(100);

    paid = false;
    const start = Date.now();
    const free = [1, 2, 3].map((chat) =>
      send(prev, "sendMessage", { chat_id: chat, text: "hi" }, undefined),
    );
    await vi.runAllTimersAsync();
    await Promise.all(free);
    const after = calls.slice(20);
    expect(after.map((c) => c.payload.allow_paid_broadcast)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(after.map((c) => c.at - start)).toEqual([0, 1_000, 2_000]);
  });

  it("flags only the new messages that take the parameter, and leaves the caller's options as they were", async () => {
    const gate = new FloodGate();
    gate.payFor(() => true);
    const { prev, calls } = fakeCall();
    const send = gate.transformer();
    const options = { chat_id: 1, text: "hi", ...STREAMING };
    await Promise.all([
      send(prev, "sendMessage", options, undefined),
      send(prev, "sendPhoto", { chat_id: 1, photo: "file-1" }, undefined),
      send(prev, "forwardMessage", { chat_id: 1, from_chat_id: 2, message_id: 3 }, undefined),
      send(prev, "editMessageText", { chat_id: 1, message_id: 1, text: "x" }, undefined),
      send(prev, "sendMessageDraft", { chat_id: 1, draft_id: 1, text: "x" }, undefined),
    ]);
    const flagged = Object.fromEntries(
      calls.map((c) => [c.method, c.payload.allow_paid_broadcast === true]),
    );
    expect(flagged).toEqual({
      sendMessage: true,
      sendPhoto: true,
      forwardMessage: false,
      editMessageText: false,
      sendMessageDraft: false,
    });
    expect(options).not.toHaveProperty("allow_paid_broadcast");
  });
});

/** A `${NAME}` reference, as the config writes a token. */
const variable = (name: string) => `\${${name}}`;

describe("the paid_broadcast setting", () => {
  it("is off unless the section or the account turns it on; an account's own choice wins", () => {
    expect(telegramSection.parse({})).not.toHaveProperty("paidBroadcast");
    expect(telegramSection.parse({ paid_broadcast: "on" }).paidBroadcast).toBe(true);
    const config = {
      ...EMPTY_CONFIG,
      telegram: telegramSection.parse({
        paid_broadcast: true,
        accounts: [
          { id: "sales", token: variable("SALES") },
          { id: "desk", token: variable("SALES"), paid_broadcast: false },
        ],
      }),
    };
    const [sales, desk] = telegramAccountOptions({ SALES: "123:abc" }, () => config);
    expect(sales?.settings?.().paidBroadcast).toBe(true);
    expect(desk?.settings?.().paidBroadcast).toBe(false);
  });

  it("refuses a value that is not a switch, naming the key", () => {
    const result = telegramSection.safeParse({ paid_broadcast: "sometimes" });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toMatch(/paid_broadcast/);
  });
});

describe("the fake Telegram's paid limit", () => {
  it("counts paid new messages against 1,000 a second instead of 30, keeps each chat's limit, and records them", () => {
    const ledger = new FloodLedger(TELEGRAM_LIMITS);
    // 300 chats in one second: 270 of them past the free limit.
    for (let chat = 0; chat < 300; chat++) ledger.check("sendMessage", chat, 1_000, true);
    expect(ledger.refusals).toEqual([]);
    expect(ledger.paid).toHaveLength(300);
    // The chat's own limit holds for paid messages as for any other.
    for (let i = 0; i < 3; i++) ledger.check("sendMessage", 7_777, 1_000, true);
    expect(() => ledger.check("sendMessage", 7_777, 1_000, true)).toThrow(/retry after/);
    // Unpaid ones still meet the free limit, and are not paid for.
    const free = new FloodLedger(TELEGRAM_LIMITS);
    for (let chat = 0; chat < 30; chat++) free.check("sendMessage", chat, 1_000);
    expect(() => free.check("sendMessage", 31, 1_000)).toThrow(/retry after/);
    expect(free.paid).toEqual([]);
  });
});
