import fc from "fast-check";
import type { Api } from "grammy";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StreamingReply } from "../../src/delivery/streaming.ts";
import { ChatPacer } from "../../src/platforms/telegram/chat-pacer.ts";
import { TelegramDrafts } from "../../src/platforms/telegram/draft.ts";
import { DraftBudget, DraftPace } from "../../src/platforms/telegram/draft-budget.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";

/**
 * A run of the pace on a clock of its own: at each step some answers start
 * streaming, and each asks for its later drafts one after another (the
 * next once the last was granted), up to `drafts` of them; the pace is
 * asked for grants at each step and at each time it names. Returns every
 * grant: when it was asked for, how many were waiting then, when it came.
 */
function simulate(
  perSecond: number,
  drafts: number,
  steps: readonly { gap: number; starting: number }[],
) {
  const pace = new DraftPace<number>(perSecond, 0);
  const open = new Map<number, { who: number; asked: number; ahead: number; at: number }>();
  const left = new Map<number, number>();
  const grants: { who: number; asked: number; ahead: number; at: number }[] = [];
  let answers = 0;
  let now = 0;
  const ask = (who: number) => {
    const more = left.get(who) ?? 0;
    if (more === 0) return;
    left.set(who, more - 1);
    open.set(who, { who, asked: now, ahead: pace.waiting, at: Number.NaN });
    pace.ask(who);
  };
  // As the budget does: whoever is granted asks again at once, and is served if a token is left.
  const grant = () => {
    for (;;) {
      const { granted, next } = pace.grant(now);
      if (granted.length === 0) return next;
      for (const who of granted) {
        const draft = open.get(who);
        if (draft) grants.push({ ...draft, at: now });
        ask(who);
      }
    }
  };
  for (const { gap, starting } of steps) {
    let next = grant();
    const until = now + gap;
    while (next !== undefined && next <= until) {
      now = next;
      next = grant();
    }
    now = until;
    for (let i = 0; i < starting; i++) {
      const who = answers++;
      left.set(who, drafts);
      ask(who);
    }
  }
  // Time runs on until every draft asked for is served.
  for (let next = grant(); next !== undefined; next = grant()) now = next;
  return grants;
}

const run = fc.record({
  perSecond: fc.integer({ min: 1, max: 300 }),
  drafts: fc.integer({ min: 1, max: 6 }),
  steps: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 3_000 }),
      starting: fc.integer({ min: 0, max: 40 }),
    }),
    { minLength: 1, maxLength: 20 },
  ),
});

describe("the pace of later drafts, shared by every answer a worker streams", () => {
  it("serves drafts in the order they asked: no answer grows twice while another waits", () => {
    fc.assert(
      fc.property(run, ({ perSecond, drafts, steps }) => {
        const grants = simulate(perSecond, drafts, steps);
        for (let i = 1; i < grants.length; i++) {
          expect(grants[i]?.at).toBeGreaterThanOrEqual(grants[i - 1]?.at ?? 0);
          expect(grants[i]?.asked).toBeGreaterThanOrEqual(grants[i - 1]?.asked ?? 0);
        }
      }),
    );
  });

  it("never grants more than its rate, a tenth of a second's saved up at most, however many answers stream", () => {
    fc.assert(
      fc.property(run, ({ perSecond, drafts, steps }) => {
        const times = simulate(perSecond, drafts, steps).map((g) => g.at);
        const burst = Math.max(1, perSecond / 10);
        // The most grants in any window of time, against what the rate allows in it.
        const over = [];
        for (let i = 0; i < times.length; i++) {
          for (let j = i; j < Math.min(times.length, i + 400); j++) {
            const window = (times[j] as number) - (times[i] as number);
            if (j - i + 1 > burst + (window * perSecond) / 1_000 + 1e-9) over.push([i, j]);
          }
        }
        expect(over).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  it("serves every draft, at the latest once the rate has served those ahead of it", () => {
    fc.assert(
      fc.property(run, ({ perSecond, drafts, steps }) => {
        const grants = simulate(perSecond, drafts, steps);
        const asked = steps.reduce((sum, s) => sum + s.starting, 0) * drafts;
        expect(grants).toHaveLength(asked);
        for (const g of grants) {
          expect(g.at - g.asked).toBeLessThanOrEqual(((g.ahead + 1) * 1_000) / perSecond + 1e-6);
        }
      }),
    );
  });
});

describe("drafts under a worker's budget", () => {
  const T0 = 1_000_000;
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const api = (sent: { chat: number; text: string; at: number }[]) =>
    ({
      sendMessageDraft: async (chat: number, _id: number, text: string) => {
        sent.push({ chat, text, at: Date.now() });
        return true;
      },
    }) as unknown as Api;

  it("sends every answer's first draft at once, while later ones wait their turn in order", async () => {
    const sent: { chat: number; text: string; at: number }[] = [];
    const drafts = new TelegramDrafts(
      () => api(sent),
      new ChatPacer(1_000),
      (text) => text,
      () => "native",
      new DraftBudget(2),
    );
    const streams = [];
    for (let chat = 1; chat <= 6; chat++) {
      const target = {
        platform: "telegram",
        workspace: String(chat),
        channel: String(chat),
        conversation: String(chat),
      };
      const native = await drafts.open(target, { key: `turn-${chat}-0` });
      const reply = new StreamingReply({
        outbound: new RecordingOutbound(),
        target,
        idempotencyKey: `turn-${chat}-0`,
        intervalMs: 1_000,
        native,
        onPosted: async () => {},
      });
      streams.push(reply);
      reply.update(`answer ${chat}`);
    }
    await vi.advanceTimersByTimeAsync(10);
    // Six first drafts at once, though the budget is two a second.
    expect(sent.map((s) => [s.chat, s.at])).toEqual([1, 2, 3, 4, 5, 6].map((c) => [c, T0]));
    for (const [i, reply] of streams.entries()) reply.update(`answer ${i + 1}, longer`);
    // A second on, all six wait in line; two get their turn by 1.5 s.
    await vi.advanceTimersByTimeAsync(1_500);
    for (const [i, reply] of streams.entries()) reply.update(`answer ${i + 1}, longer still`);
    await vi.advanceTimersByTimeAsync(10_000);
    const later = sent.slice(6);
    // Two a second, each answer in its turn: the first two grow again only after the other four.
    expect(later.map((s) => s.chat)).toEqual([1, 2, 3, 4, 5, 6, 1, 2]);
    for (let i = 2; i < later.length; i++) {
      expect((later[i]?.at ?? 0) - (later[i - 2]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
    // Each shows its newest text when its turn comes: what was overtaken in line is never sent.
    expect(later.map((s) => s.text.replace(/^answer \d, /, ""))).toEqual([
      "longer",
      "longer",
      ...Array(6).fill("longer still"),
    ]);
    for (const reply of streams) await reply.close();
  });

  it("drops a draft still waiting for its turn when the answer is done: the answer follows at once", async () => {
    const sent: { chat: number; text: string; at: number }[] = [];
    const budget = new DraftBudget(1);
    const drafts = new TelegramDrafts(
      () => api(sent),
      new ChatPacer(0),
      (text) => text,
      () => "native",
      budget,
    );
    const target = { platform: "telegram", workspace: "9", channel: "9", conversation: "9" };
    // Others hold the line: the budget's next turn is seconds away.
    for (let i = 0; i < 5; i++) void budget.next();
    const native = await drafts.open(target, { key: "turn-9-0" });
    const reply = new StreamingReply({
      outbound: new RecordingOutbound(),
      target,
      idempotencyKey: "turn-9-0",
      intervalMs: 0,
      native,
      onPosted: async () => {},
    });
    reply.update("The");
    await vi.advanceTimersByTimeAsync(10);
    reply.update("The answer");
    await vi.advanceTimersByTimeAsync(10);
    const closed = reply.close();
    await vi.advanceTimersByTimeAsync(10);
    await closed;
    expect(sent.map((s) => s.text)).toEqual(["The"]);
  });

  it("shows the whole answer in the draft at once when the answer's message must wait for the bot's pace", async () => {
    const sent: { chat: number; text: string; at: number }[] = [];
    const budget = new DraftBudget(1);
    let queued = 0;
    const drafts = new TelegramDrafts(
      () => api(sent),
      new ChatPacer(0),
      (text) => text,
      () => "native",
      budget,
      () => queued,
    );
    const target = { platform: "telegram", workspace: "9", channel: "9", conversation: "9" };
    for (let i = 0; i < 5; i++) void budget.next();
    const native = await drafts.open(target, { key: "turn-9-0" });
    const reply = new StreamingReply({
      outbound: new RecordingOutbound(),
      target,
      idempotencyKey: "turn-9-0",
      intervalMs: 0,
      native,
      onPosted: async () => {},
    });
    reply.update("The");
    await vi.advanceTimersByTimeAsync(10);
    reply.update("The answer, whole");
    await vi.advanceTimersByTimeAsync(10);
    // Two hundred answers ended together: this one's message is queued behind theirs.
    queued = 200;
    const closed = reply.close();
    await vi.advanceTimersByTimeAsync(10);
    await closed;
    expect(sent.map((s) => [s.text, s.at - T0])).toEqual([
      ["The", 0],
      ["The answer, whole", 20],
    ]);
  });

  it("leaves the last draft out where the chat's pace would refuse it: the message counts there too", async () => {
    const sent: { chat: number; text: string; at: number }[] = [];
    const drafts = new TelegramDrafts(
      () => api(sent),
      new ChatPacer(1_000),
      (text) => text,
      () => "native",
      new DraftBudget(1),
      () => 200,
    );
    const target = { platform: "telegram", workspace: "9", channel: "9", conversation: "9" };
    const native = await drafts.open(target, { key: "turn-9-0" });
    const reply = new StreamingReply({
      outbound: new RecordingOutbound(),
      target,
      idempotencyKey: "turn-9-0",
      intervalMs: 0,
      native,
      onPosted: async () => {},
    });
    reply.update("The");
    await vi.advanceTimersByTimeAsync(10);
    reply.update("The answer, whole");
    const closed = reply.close();
    await vi.advanceTimersByTimeAsync(2_000);
    await closed;
    expect(sent.map((s) => s.text)).toEqual(["The"]);
  });
});
