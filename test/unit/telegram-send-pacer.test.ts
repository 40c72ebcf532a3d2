import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PAID_BROADCAST_PACE,
  type PacerClock,
  type SendPace,
  SendPacer,
  type SendPriority,
  TELEGRAM_SEND_PACE,
} from "../../src/platforms/telegram/send-pacer.ts";
import { TELEGRAM_LIMITS } from "../../src/testing/fakes/telegram-limits.ts";

/** A virtual clock: timers run in time order when {@link run} is called. */
class VirtualClock implements PacerClock {
  #now = 0;
  #timers: { at: number; seq: number; run: () => void }[] = [];
  #seq = 0;

  now(): number {
    return this.#now;
  }

  after(ms: number, run: () => void): void {
    this.#timers.push({ at: this.#now + ms, seq: this.#seq++, run });
  }

  run(): void {
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers.shift();
      if (!next) return;
      this.#now = next.at;
      next.run();
    }
  }
}

interface Send {
  readonly at: number;
  readonly priority: SendPriority;
}

interface Grant {
  readonly at: number;
  readonly index: number;
  readonly arrivedAt: number;
  readonly priority: SendPriority;
  /** Posts that had arrived and were still waiting when this one was let through. */
  readonly postsWaiting: number;
}

/** Runs the sends through a pacer on a virtual clock; what was let through, when. */
function simulate(pace: SendPace, sends: readonly Send[]): Grant[] {
  const clock = new VirtualClock();
  const pacer = new SendPacer(pace, clock);
  const grants: Grant[] = [];
  const waitingPosts = new Set<number>();
  for (const [index, send] of sends.entries()) {
    clock.after(send.at, () => {
      if (send.priority === "post") waitingPosts.add(index);
      pacer.request(send.priority, () => {
        waitingPosts.delete(index);
        grants.push({
          at: clock.now(),
          index,
          arrivedAt: send.at,
          priority: send.priority,
          postsWaiting: waitingPosts.size,
        });
      });
    });
  }
  clock.run();
  return grants;
}

const paces = fc.record({
  perSecond: fc.integer({ min: 1, max: 40 }),
  burst: fc.integer({ min: 1, max: 10 }),
});
const sendLists = fc.array(
  fc.record({
    at: fc.integer({ min: 0, max: 3_000 }),
    priority: fc.constantFrom<SendPriority>("post", "stream"),
  }),
  { maxLength: 80 },
);

describe("the bot-wide send pacer", () => {
  it("lets every send through, never more in any window than the burst plus the pace allows", () => {
    fc.assert(
      fc.property(paces, sendLists, (pace, sends) => {
        const grants = simulate(pace, sends);
        expect(grants).toHaveLength(sends.length);
        for (const grant of grants) expect(grant.at).toBeGreaterThanOrEqual(grant.arrivedAt);
        const times = grants.map((grant) => grant.at);
        for (const [i, from] of times.entries()) {
          for (const [k, to] of times.slice(i).entries()) {
            expect(k + 1).toBeLessThanOrEqual(
              pace.burst + ((to - from) * pace.perSecond) / 1000 + 1e-9,
            );
          }
        }
      }),
    );
  });

  it("lets a streamed preview through only when no answer waits, answers in the order they came", () => {
    fc.assert(
      fc.property(paces, sendLists, (pace, sends) => {
        const grants = simulate(pace, sends);
        for (const grant of grants)
          if (grant.priority === "stream") expect(grant.postsWaiting).toBe(0);
        const posts = grants.filter((g) => g.priority === "post").map((g) => g.index);
        const arrived = grants
          .filter((g) => g.priority === "post")
          .sort((a, b) => a.arrivedAt - b.arrivedAt || a.index - b.index)
          .map((g) => g.index);
        expect(posts).toEqual(arrived);
      }),
    );
  });

  it("sends a burst at once, then keeps the pace: 200 answers at 25 a second take 7.8 s", () => {
    const sends = Array.from({ length: 200 }, () => ({ at: 0, priority: "post" as const }));
    const grants = simulate({ perSecond: 25, burst: 5 }, sends);
    expect(grants.filter((g) => g.at === 0)).toHaveLength(5);
    expect(grants.at(-1)?.at).toBe(7_800);
  });

  it.each([
    ["free", TELEGRAM_SEND_PACE, TELEGRAM_LIMITS.perBotPerSecond, 300],
    ["paid", PAID_BROADCAST_PACE, TELEGRAM_LIMITS.paidPerBotPerSecond ?? 1_000, 4_000],
  ])(
    "keeps the %s pace under Telegram's limit in every second, however many answers finish at once",
    (_, pace, limit, answers) => {
      // Answers finishing together, then more a little later: the bucket starts full twice.
      const sends = Array.from({ length: answers }, (_, i) => ({
        at: i < answers / 2 ? 0 : 60_000,
        priority: "post" as const,
      }));
      const times = simulate(pace, sends).map((grant) => grant.at);
      let most = 0;
      for (let from = 0, to = 0; from < times.length; from++) {
        while (to < times.length && (times[to] as number) <= (times[from] as number) + 1_000) to++;
        most = Math.max(most, to - from);
      }

      expect(most).toBeLessThanOrEqual(limit);
      // And it uses what the limit allows: a tenth under it at most.
      expect(most).toBeGreaterThanOrEqual(limit * 0.9);
    },
  );
});
