import type { ApiResponse } from "grammy/types";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FloodGate, STREAMING } from "../../src/platforms/telegram/flood-gate.ts";

const TOO_MANY: ApiResponse<never> = {
  ok: false,
  error_code: 429,
  description: "Too Many Requests: retry after 1",
  parameters: { retry_after: 1 },
};
const SENT: ApiResponse<unknown> = { ok: true, result: { message_id: 1 } };

/** A Bot API that answers from `answers` in turn (then OK), recording when each call came. */
function fakeCall(answers: ApiResponse<unknown>[]) {
  const calls: { method: string; chat: unknown; at: number }[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: grammY's transformer types its previous call per method.
  const prev: any = async (method: string, payload: { chat_id?: unknown }) => {
    calls.push({ method, chat: payload.chat_id, at: Date.now() });
    return answers.shift() ?? SENT;
  };
  return { prev, calls };
}

describe("the flood gate of a bot token", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits out every 429 and tries again, past the five attempts the auto-retry would allow", async () => {
    const gate = new FloodGate({ perSecond: 30, burst: 5 });
    const { prev, calls } = fakeCall(Array.from({ length: 7 }, () => TOO_MANY));
    const start = Date.now();
    const result = gate.transformer()(prev, "sendMessage", { chat_id: 1, text: "hi" }, undefined);
    await vi.runAllTimersAsync();
    expect(await result).toEqual(SENT);
    expect(calls).toHaveLength(8);
    for (const [i, call] of calls.entries())
      expect(call.at - start).toBeGreaterThanOrEqual(i * 1_000);
  });

  it("holds every call to a chat during its announced wait, and no other chat's", async () => {
    const gate = new FloodGate({ perSecond: 30, burst: 5 });
    const { prev, calls } = fakeCall([TOO_MANY]);
    const send = gate.transformer();
    const start = Date.now();
    const first = send(prev, "sendMessage", { chat_id: 1, text: "hi" }, undefined);
    await vi.advanceTimersByTimeAsync(10);
    const draft = send(prev, "sendMessageDraft", { chat_id: 1, draft_id: 5, text: "h" }, undefined);
    const other = send(prev, "sendMessage", { chat_id: 2, text: "hi" }, undefined);
    await vi.runAllTimersAsync();
    await Promise.all([first, draft, other]);
    const at = (method: string, chat: number) =>
      calls.filter((c) => c.method === method && c.chat === chat).map((c) => c.at - start);
    expect(at("sendMessage", 2)).toEqual([10]);
    expect(at("sendMessageDraft", 1)[0]).toBeGreaterThanOrEqual(1_000);
    expect(at("sendMessage", 1)).toEqual([0, expect.any(Number)]);
    expect(at("sendMessage", 1)[1]).toBeGreaterThanOrEqual(1_000);
  });

  it("lets edits and drafts past the bot's pace, which counts new messages only", async () => {
    const gate = new FloodGate({ perSecond: 1, burst: 1 });
    const { prev, calls } = fakeCall([]);
    const send = gate.transformer();
    const sends = [1, 2, 3].map((chat) =>
      send(prev, "sendMessage", { chat_id: chat, text: "hi" }, undefined),
    );
    const edit = send(prev, "editMessageText", { chat_id: 9, message_id: 1, text: "x" }, undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.method).sort()).toEqual(["editMessageText", "sendMessage"]);
    await vi.runAllTimersAsync();
    await Promise.all([...sends, edit]);
    expect(calls.filter((c) => c.method === "sendMessage").map((c) => c.at)).toEqual([
      calls[0]?.at,
      (calls[0]?.at ?? 0) + 1_000,
      (calls[0]?.at ?? 0) + 2_000,
    ]);
  });

  it("sends a streamed preview after the answers waiting with it, and never shows Telegram the mark", async () => {
    const gate = new FloodGate({ perSecond: 1, burst: 1 });
    const { prev, calls } = fakeCall([]);
    const send = gate.transformer();
    const post = (chat: number, options: object = {}) =>
      send(prev, "sendMessage", { chat_id: chat, text: "hi", ...options }, undefined);
    const sends = [post(1), post(2, STREAMING), post(3), post(4)];
    await vi.runAllTimersAsync();
    await Promise.all(sends);
    expect(calls.map((c) => c.chat)).toEqual([1, 3, 4, 2]);
    expect(JSON.stringify({ chat_id: 2, ...STREAMING })).toBe('{"chat_id":2}');
  });
});
