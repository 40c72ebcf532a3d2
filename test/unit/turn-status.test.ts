import type { Api } from "grammy";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Activity } from "../../src/core/delivery/activity.ts";
import { statusText, toolActivity } from "../../src/core/delivery/activity.ts";
import { TurnStatus } from "../../src/delivery/turn-status.ts";
import { TelegramOutbound } from "../../src/platforms/telegram/outbound.ts";
import type { DeliveryTarget } from "../../src/ports/outbound.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";

const address = { platform: "test", workspace: "w", channel: "c", conversation: "c" };
const where = { address, target: { ...address, thread: "t" } };
/** No status line on these outbounds: the environment is never read. */
const env = {} as Parameters<typeof TurnStatus.open>[0];

/** An outbound with an indicator, recording what it shows and when. */
class IndicatorOutbound extends RecordingOutbound {
  readonly shown: { at: number; status: string }[] = [];
  constructor(readonly activityEveryMs: number) {
    super();
  }
  async showActivity(_target: DeliveryTarget, activity: Activity | undefined) {
    this.shown.push({ at: Date.now(), status: activity ? statusText(activity) : "" });
  }
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a turn's status while it runs", () => {
  it("shows a tool while it runs, goes back to thinking, and is cleared when the answer lands", async () => {
    const outbound = new IndicatorOutbound(1_000);
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-1",
      resumed: false,
    });
    await vi.advanceTimersByTimeAsync(1_500);
    const finished = status.tool(toolActivity("web_search", { query: "private words" }));
    await vi.advanceTimersByTimeAsync(2_000);
    finished();
    await vi.advanceTimersByTimeAsync(1_000);
    status.pause();
    await status.end();
    await vi.runAllTimersAsync();
    expect(outbound.shown.map((s) => s.status)).toEqual([
      "is thinking…",
      "is searching the web…",
      "is thinking…",
      "",
    ]);
    expect(outbound.calls.filter((c) => c.kind === "typing")).toEqual([]);
  });

  it("sends at most one indicator per its least gap, however many tools start and finish", async () => {
    const outbound = new IndicatorOutbound(4_000);
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-2",
      resumed: false,
    });
    // A turn of 20 s: a burst of short tools every 300 ms.
    for (let t = 0; t < 20_000; t += 300) {
      const finished = status.tool(toolActivity(t % 600 ? "lookup" : "web_search", {}));
      await vi.advanceTimersByTimeAsync(150);
      finished();
      await vi.advanceTimersByTimeAsync(150);
    }
    status.pause();
    const times = outbound.shown.map((s) => s.at);
    // Never closer than 4 s: the 20 s turn sends at most 20 / 4 + 1 actions, as typing did.
    expect(times.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(4_000);
    }
  });

  it("keeps an indicator alive every 4 s while nothing changes", async () => {
    const outbound = new IndicatorOutbound(4_000);
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-3",
      resumed: false,
    });
    await vi.advanceTimersByTimeAsync(12_100);
    status.pause();
    expect(outbound.shown.map((s) => s.at)).toEqual([0, 4_000, 8_000, 12_000]);
  });

  it("sends typing as before where the platform has no indicator, and nothing more for tools", async () => {
    const outbound = new RecordingOutbound();
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-4",
      resumed: false,
    });
    const finished = status.tool(toolActivity("web_search", {}));
    await vi.advanceTimersByTimeAsync(8_100);
    finished();
    status.pause();
    await status.end();
    expect(outbound.calls.map((c) => [c.kind, c.at])).toEqual([
      ["typing", 0],
      ["typing", 4_000],
      ["typing", 8_000],
    ]);
  });

  it("leaves a parked turn showing that it waits for approval", async () => {
    const outbound = new IndicatorOutbound(1_000);
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-5",
      resumed: false,
    });
    status.pause();
    await status.end({ kind: "approval" });
    await vi.runAllTimersAsync();
    expect(outbound.shown.map((s) => s.status)).toEqual([
      "is thinking…",
      "is waiting for approval…",
    ]);
  });

  it("shows nothing more once the turn's lease is lost", async () => {
    const outbound = new IndicatorOutbound(1_000);
    const lease = new AbortController();
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-6",
      resumed: false,
      signal: lease.signal,
    });
    lease.abort();
    status.pause();
    await status.end();
    await vi.runAllTimersAsync();
    expect(outbound.shown.map((s) => s.status)).toEqual(["is thinking…"]);
  });
});

describe("a turn whose answer streams as a draft", () => {
  it("sends no indicator while the draft grows; a tool shows again while it runs", async () => {
    const outbound = new IndicatorOutbound(4_000);
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-8",
      resumed: false,
    });
    // The first text shows a second in: the draft is the sign of work from then on.
    await vi.advanceTimersByTimeAsync(1_000);
    status.answerShowing();
    await vi.advanceTimersByTimeAsync(11_000);
    expect(outbound.shown.map((s) => s.at)).toEqual([0]);
    // A tool runs 9 s: the draft stands still meanwhile, so the tool is shown and kept alive.
    const finished = status.tool(toolActivity("web_search", {}));
    await vi.advanceTimersByTimeAsync(9_000);
    finished();
    await vi.advanceTimersByTimeAsync(12_000);
    status.pause();
    await status.end();
    await vi.runAllTimersAsync();
    expect(outbound.shown).toEqual([
      { at: 0, status: "is thinking…" },
      { at: 12_000, status: "is searching the web…" },
      { at: 16_000, status: "is searching the web…" },
      { at: 20_000, status: "is searching the web…" },
      // Cleared when the answer lands (on Telegram, a clear sends nothing).
      { at: 33_000, status: "" },
    ]);
  });
});

describe("a platform slow to answer", () => {
  it("gets no backlog of indicators: those due while one hangs are not sent once the turn is over", async () => {
    const outbound = new IndicatorOutbound(4_000);
    const shown = outbound.showActivity.bind(outbound);
    // Each call takes 10 s to answer.
    outbound.showActivity = async (target, activity) => {
      await shown(target, activity);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    };
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-9",
      resumed: false,
    });
    // Refreshes fall due at 4 s and 8 s while the first call hangs; the model ends at 9 s.
    await vi.advanceTimersByTimeAsync(9_000);
    status.pause();
    await status.end();
    await vi.runAllTimersAsync();
    expect(outbound.shown).toEqual([
      { at: 0, status: "is thinking…" },
      { at: 10_000, status: "" },
    ]);
  });

  it("sends the newest of the indicators due while one hangs, once, while the turn runs", async () => {
    const outbound = new IndicatorOutbound(4_000);
    const shown = outbound.showActivity.bind(outbound);
    outbound.showActivity = async (target, activity) => {
      await shown(target, activity);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    };
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-10",
      resumed: false,
    });
    await vi.advanceTimersByTimeAsync(10_500);
    status.pause();
    expect(outbound.shown.map((s) => s.at)).toEqual([0, 10_000]);
  });
});

describe("a file of the answer going up", () => {
  it("is shown once the least gap allows, and not refreshed", async () => {
    const outbound = new IndicatorOutbound(4_000);
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-7",
      resumed: false,
    });
    await vi.advanceTimersByTimeAsync(1_000);
    status.pause();
    status.show({ kind: "sending", file: "report.pdf", image: false });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(outbound.shown).toEqual([
      { at: 0, status: "is thinking…" },
      { at: 4_000, status: "is sending report.pdf…" },
    ]);
  });
});

describe("Telegram's chat actions", () => {
  it("types while thinking or running a tool, uploads while a file goes up, and sends nothing to clear or wait", async () => {
    const sent: unknown[][] = [];
    const api = {
      sendChatAction: async (...args: unknown[]) => {
        sent.push(args);
        return true;
      },
    } as unknown as Api;
    const outbound = new TelegramOutbound(() => api, "token");
    const target = { ...address, channel: "42", thread: "7" };
    await outbound.showActivity(target, { kind: "thinking" });
    await outbound.showActivity(target, toolActivity("web_search", {}));
    await outbound.showActivity(target, { kind: "sending", file: "a.pdf", image: false });
    await outbound.showActivity(target, { kind: "sending", file: "a.png", image: true });
    await outbound.showActivity(target, { kind: "approval" });
    await outbound.showActivity(target, undefined);
    expect(sent).toEqual([
      ["42", "typing", { message_thread_id: 7 }],
      ["42", "typing", { message_thread_id: 7 }],
      ["42", "upload_document", { message_thread_id: 7 }],
      ["42", "upload_photo", { message_thread_id: 7 }],
    ]);
    expect(outbound.activityEveryMs).toBe(4_000);
  });
});
