import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BucketAnswer,
  MemorySendBucket,
  type SendBucket,
  type SendPace,
} from "../../src/platforms/telegram/send-bucket.ts";
import {
  LOCAL_SPELL_MS,
  type PacerClock,
  SendPacer,
  type SendPriority,
  SHARED_TIMEOUT_MS,
} from "../../src/platforms/telegram/send-pacer.ts";

/**
 * A virtual clock whose timers run in time order, with the promises they
 * settle run out before the next timer: a bucket's answer that comes after
 * a round trip arrives as it would, between timers.
 */
class VirtualClock implements PacerClock {
  #now = 0;
  #timers: { at: number; seq: number; run: () => void; cancelled: boolean }[] = [];
  #seq = 0;

  now(): number {
    return this.#now;
  }

  after(ms: number, run: () => void): () => void {
    const timer = { at: this.#now + ms, seq: this.#seq++, run, cancelled: false };
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  async run(): Promise<void> {
    for (;;) {
      await settle();
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers.shift();
      if (!next) return;
      this.#now = next.at;
      if (!next.cancelled) next.run();
    }
  }
}

/** Runs out the promise jobs queued so far (and those they queue), as the event loop would before a timer. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/**
 * The bot's bucket in "Redis" for processes on a virtual clock: the one
 * bucket every pacer draws from, answering after `tripMs` (the way there
 * and back), counted at the moment it is reached, as a script runs.
 */
function sharedBucket(clock: VirtualClock, tripMs: number): SendBucket & { trips: number } {
  const bucket = new MemorySendBucket(() => clock.now());
  const shared = {
    trips: 0,
    take(want: number, pace: SendPace): Promise<BucketAnswer> {
      shared.trips++;
      return new Promise((resolve) => {
        clock.after(tripMs / 2, () => {
          const answer = bucket.take(want, pace);
          clock.after(tripMs / 2, () => resolve(answer));
        });
      });
    },
  };
  return shared;
}

interface Send {
  readonly at: number;
  readonly process: number;
  readonly priority: SendPriority;
}

/** Sends through `processes` pacers sharing one bucket; when each was let through. */
async function simulate(
  pace: SendPace,
  processes: number,
  tripMs: number,
  sends: readonly Send[],
): Promise<{ grants: { at: number; index: number }[]; trips: number }> {
  const clock = new VirtualClock();
  const bucket = sharedBucket(clock, tripMs);
  const pacers = Array.from({ length: processes }, () => {
    const pacer = new SendPacer(pace, clock);
    pacer.share(bucket);
    return pacer;
  });
  const grants: { at: number; index: number }[] = [];
  for (const [index, send] of sends.entries()) {
    clock.after(send.at, () =>
      pacers[send.process % processes]?.request(send.priority, () =>
        grants.push({ at: clock.now(), index }),
      ),
    );
  }
  await clock.run();
  return { grants, trips: bucket.trips };
}

/** The most grants within `ms` of one another, for each window starting at a grant: the bound's left side. */
function overBound(times: readonly number[], pace: SendPace): string | undefined {
  const sorted = [...times].sort((a, b) => a - b);
  for (const [i, from] of sorted.entries()) {
    for (let k = i; k < sorted.length; k++) {
      const to = sorted[k] as number;
      const count = k - i + 1;
      if (count > pace.burst + ((to - from) * pace.perSecond) / 1000 + 1e-9) {
        return `${count} granted between ${from} and ${to} ms`;
      }
    }
  }
  return undefined;
}

const paces = fc.record({
  perSecond: fc.integer({ min: 1, max: 60 }),
  burst: fc.integer({ min: 1, max: 10 }),
});
const sendLists = fc.array(
  fc.record({
    at: fc.integer({ min: 0, max: 2_000 }),
    process: fc.nat(7),
    priority: fc.constantFrom<SendPriority>("post", "stream"),
  }),
  { maxLength: 60 },
);

describe("one bot's send pace shared by its processes", () => {
  it("grants every send, never more in any window than the burst plus the pace, whatever the processes and arrivals", async () => {
    await fc.assert(
      fc.asyncProperty(
        paces,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 20 }),
        sendLists,
        async (pace, processes, tripMs, sends) => {
          const { grants } = await simulate(pace, processes, tripMs, sends);
          expect(grants.map((g) => g.index).sort((a, b) => a - b)).toEqual(sends.map((_, i) => i));
          for (const grant of grants) {
            expect(grant.at).toBeGreaterThanOrEqual(sends[grant.index]?.at ?? 0);
          }
          expect(
            overBound(
              grants.map((g) => g.at),
              pace,
            ),
          ).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps two processes' 400 answers at the one pace: 25 a second together, not 25 each", async () => {
    const pace = { perSecond: 25, burst: 5 };
    const sends = Array.from({ length: 400 }, (_, i) => ({
      at: 0,
      process: i % 2,
      priority: "post" as const,
    }));
    const { grants, trips } = await simulate(pace, 2, 2, sends);
    expect(grants).toHaveLength(400);
    // 5 at once, then 395 at 25 a second, and each round trip's 1 ms on the way back.
    const last = Math.max(...grants.map((g) => g.at));
    expect(last).toBeGreaterThanOrEqual(15_800);
    expect(last).toBeLessThan(16_200);
    // One trip books several sends: fewer trips than messages, though both ask at once.
    expect(trips).toBeLessThan(0.7 * 400);
  });

  it("lets one process's waiting messages go on one round trip, as many as the bucket holds", async () => {
    const pace = { perSecond: 10, burst: 8 };
    const sends = Array.from({ length: 8 }, () => ({
      at: 0,
      process: 0,
      priority: "post" as const,
    }));
    const { grants, trips } = await simulate(pace, 1, 4, sends);
    expect(grants.map((g) => g.at)).toEqual([4, ...Array(7).fill(8)]);
    // The first message asks alone; the seven that came meanwhile go on the second trip.
    expect(trips).toBe(2);
  });

  it("books a burst's worth of sends on each round trip of a process sending alone", async () => {
    const pace = { perSecond: 25, burst: 5 };
    const sends = Array.from({ length: 200 }, () => ({
      at: 0,
      process: 0,
      priority: "post" as const,
    }));
    const { grants, trips } = await simulate(pace, 1, 1, sends);
    expect(grants).toHaveLength(200);
    expect(trips).toBeLessThanOrEqual(200 / pace.burst + 2);
  });
});

describe("the send pace while Redis is away", () => {
  /** A shared bucket that fails (or never answers) until `back`, then answers from a memory bucket. */
  function flakyBucket(clock: VirtualClock, how: "error" | "silent", back: number) {
    const bucket = new MemorySendBucket(() => clock.now());
    return {
      calls: 0,
      take(want: number, pace: SendPace): Promise<BucketAnswer> {
        this.calls++;
        if (clock.now() >= back) return Promise.resolve(bucket.take(want, pace));
        if (how === "error") return Promise.reject(new Error("Connection is closed."));
        return new Promise(() => {});
      },
    };
  }

  for (const how of ["error", "silent"] as const) {
    it(`keeps sending at the process's own pace when Redis ${how === "error" ? "fails" : "does not answer"}, says so once, and shares again once it is back`, async () => {
      const clock = new VirtualClock();
      const pace = { perSecond: 20, burst: 4 };
      const back = 2 * LOCAL_SPELL_MS;
      const shared = flakyBucket(clock, how, back);
      const warnings: string[] = [];
      const pacer = new SendPacer(pace, clock);
      pacer.share(shared, { warn: (message) => warnings.push(message) });
      const granted: number[] = [];
      // 20 messages a second for 20 s: through the outage and after it.
      for (let i = 0; i < 400; i++) {
        clock.after(i * 50, () => pacer.request("post", () => granted.push(clock.now())));
      }
      await clock.run();
      expect(granted).toHaveLength(400);
      // On its own bucket the process keeps the pace; where it changes buckets, a burst more at most.
      expect(
        overBound(
          granted.filter((at) => at < back),
          pace,
        ),
      ).toBeUndefined();
      expect(overBound(granted, { ...pace, burst: 2 * pace.burst })).toBeUndefined();
      const first = how === "error" ? 0 : SHARED_TIMEOUT_MS;
      expect(Math.min(...granted)).toBe(first);
      expect(warnings.filter((w) => /did not answer/.test(w))).toHaveLength(1);
      expect(warnings.filter((w) => /answers again/.test(w))).toHaveLength(1);
      // Tried again every LOCAL_SPELL_MS, not at every message.
      expect(shared.calls).toBeLessThan(400);
      expect(granted.filter((at) => at >= back + LOCAL_SPELL_MS)).not.toHaveLength(0);
    });
  }
});
