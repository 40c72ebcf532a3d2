import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  planTake,
  QUEUE_MODES,
  type QueueBehaviour,
  type Waiting,
} from "../../src/core/agent/queue-mode.ts";
import { queueBehaviourFor } from "../../src/core/config/index.ts";
import { readConfig } from "../../src/platforms/config.ts";
import { queueBehaviourOf, queueFromEnv } from "../../src/runtime/queue-settings.ts";

interface Arrival extends Waiting {
  readonly id: number;
}

/** Runs the planner as a worker would: messages arrive over time, each plan takes or waits. */
function simulate(arrivals: readonly Arrival[], behaviour: QueueBehaviour) {
  const turns: { ids: number[]; at: number }[] = [];
  let now = arrivals[0]?.receivedAt ?? 0;
  let next = 0;
  let inbox: Arrival[] = [];
  for (let guard = 0; guard < 10_000 && (next < arrivals.length || inbox.length > 0); guard++) {
    while (next < arrivals.length && (arrivals[next]?.receivedAt ?? 0) <= now) {
      inbox.push(arrivals[next] as Arrival);
      next++;
    }
    if (inbox.length === 0) {
      now = arrivals[next]?.receivedAt ?? now;
      continue;
    }
    const plan = planTake(inbox, behaviour, now);
    if ("waitMs" in plan) {
      expect(plan.waitMs).toBeGreaterThan(0);
      // A message arriving during the wait wakes the worker up no sooner than planned.
      now += plan.waitMs;
      continue;
    }
    expect(plan.take).toBeGreaterThan(0);
    turns.push({ ids: inbox.slice(0, plan.take).map((m) => m.id), at: now });
    inbox = inbox.slice(plan.take);
  }
  return turns;
}

const arrivalsArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 2_000 }), fc.constantFrom("ada", "bo")), {
    minLength: 1,
    maxLength: 30,
  })
  .map((gaps) => {
    let t = 1_000_000;
    return gaps.map(([gap, user], id): Arrival => {
      t += gap;
      return { id, user, receivedAt: t, time: t };
    });
  });

describe("taking waiting messages", () => {
  it("takes every message exactly once, in order, in every mode", () => {
    fc.assert(
      fc.property(
        arrivalsArb,
        fc.constantFrom(...QUEUE_MODES),
        fc.integer({ min: 0, max: 1_500 }),
        (arrivals, mode, debounceMs) => {
          const turns = simulate(arrivals, { mode, debounceMs });
          expect(turns.flatMap((t) => t.ids)).toEqual(arrivals.map((a) => a.id));
        },
      ),
    );
  });

  it("never mixes two people's messages in a followup turn, and starts a turn only after the quiet window", () => {
    fc.assert(
      fc.property(arrivalsArb, fc.integer({ min: 1, max: 1_500 }), (arrivals, debounceMs) => {
        const turns = simulate(arrivals, { mode: "followup", debounceMs });
        for (const turn of turns) {
          const users = new Set(turn.ids.map((id) => arrivals[id]?.user));
          expect(users.size).toBe(1);
          const last = arrivals[turn.ids.at(-1) as number] as Arrival;
          const first = arrivals[turn.ids[0] as number] as Arrival;
          const quiet = Math.min(
            (last.receivedAt ?? 0) + debounceMs,
            (first.receivedAt ?? 0) + 5 * debounceMs,
          );
          // Either the window passed, or a later message already broke the burst.
          const broken = arrivals.some(
            (a) => a.id > last.id && (a.receivedAt ?? 0) <= turn.at && a.user !== first.user,
          );
          if (!broken) expect(turn.at).toBeGreaterThanOrEqual(quiet);
        }
      }),
    );
  });

  it("takes a burst of three quick lines as one turn, and waits at most five windows for someone who keeps typing", () => {
    const burst = [0, 300, 600].map((d, id) => ({ id, user: "ada", receivedAt: d, time: d }));
    expect(simulate(burst, { mode: "collect", debounceMs: 800 })).toEqual([
      { ids: [0, 1, 2], at: 1_400 },
    ]);
    const endless = Array.from({ length: 20 }, (_, id) => ({
      id,
      user: "ada",
      receivedAt: id * 500,
      time: id * 500,
    }));
    expect(simulate(endless, { mode: "collect", debounceMs: 800 })[0]?.at).toBe(4_000);
  });

  it("takes at once when there is no quiet window", () => {
    expect(
      planTake([{ user: "a", receivedAt: 10, time: 10 }], { mode: "collect", debounceMs: 0 }, 10),
    ).toEqual({ take: 1 });
  });
});

describe("the queue mode of a conversation", () => {
  const read = (text: string) => readConfig(text, "switchyard.yaml");

  it("is its channel's, else its workspace's, else the config's", () => {
    const { config } = read(
      [
        "queue:",
        "  mode: steer",
        "  debounce_ms: 300",
        '  workspaces: { "slack:T1": followup }',
        '  channels: { "slack:C9": interrupt }',
      ].join("\n"),
    );
    const at = (workspace: string, channel: string) =>
      queueBehaviourFor(config.queue, { platform: "slack", workspace, channel });
    expect(at("T1", "C9")).toEqual({ mode: "interrupt", debounceMs: 300 });
    expect(at("T1", "C1")).toEqual({ mode: "followup", debounceMs: 300 });
    expect(at("T2", "C1")).toEqual({ mode: "steer", debounceMs: 300 });
    expect(
      queueBehaviourFor(config.queue, { platform: "telegram", workspace: "T1", channel: "C9" }),
    ).toEqual({ mode: "steer", debounceMs: 300 });
  });

  it("refuses an unknown mode, naming the ones there are", () => {
    expect(() => read("queue:\n  mode: steerr\n")).toThrow(
      /queue\.mode: expected one of collect, steer, followup, interrupt, found "steerr"/,
    );
  });

  it("reads SWITCHYARD_QUEUE_MODE and _DEBOUNCE_MS over the config, and refuses bad ones", () => {
    const { config } = read('queue:\n  channels: { "slack:C9": interrupt }\n');
    const env = queueFromEnv({
      SWITCHYARD_QUEUE_MODE: "collect",
      SWITCHYARD_QUEUE_DEBOUNCE_MS: "0",
    });
    expect(
      queueBehaviourOf(
        env,
        () => config.queue,
      )({ platform: "slack", workspace: "T", channel: "C9", conversation: "C9" }),
    ).toEqual({ mode: "collect", debounceMs: 0 });
    expect(() => queueFromEnv({ SWITCHYARD_QUEUE_MODE: "fast" })).toThrow(
      /SWITCHYARD_QUEUE_MODE must be one of collect, steer, followup, interrupt, not "fast"/,
    );
    expect(() => queueFromEnv({ SWITCHYARD_QUEUE_DEBOUNCE_MS: "0.5s" })).toThrow(
      /SWITCHYARD_QUEUE_DEBOUNCE_MS must be a whole number/,
    );
  });
});
