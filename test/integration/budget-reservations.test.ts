import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import { dayPeriod } from "../../src/core/budget/usage.ts";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { createStore, type ReservationOwner, type Store } from "../../src/store/index.ts";
import { begunAt, countPickup, MAX_STALLED_PICKUPS } from "../../src/store/pickups.ts";
import { GAVE_UP } from "../../src/turn/resume.ts";
import { startPipeline } from "../support/pipeline.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

/** One turn's estimate in these tests; budgets are written in turns of it. */
const TURN = 1_000;

const cfg = (budgets: string): SwitchyardConfig =>
  parseConfig(
    `budgets:\n  turn_estimate_tokens: ${TURN}\n  tokens:\n${budgets}`,
    "switchyard.yaml",
  );

let counter = 0;
function message(over: Partial<InboundMessage> = {}): InboundMessage {
  counter += 1;
  return {
    platform: "telegram",
    workspace: "-100",
    channel: "-100",
    conversation: "-100",
    user: "7",
    kind: "group",
    text: "hi",
    attachments: [],
    eventId: `race:${counter}`,
    time: Date.now(),
    ...over,
  };
}

const person = (m: InboundMessage): ReservationOwner => ({
  kind: "user",
  user: `${m.platform}:${m.user}`,
});
const workspaceOf = (m: InboundMessage): ReservationOwner => ({ kind: "workspace", ref: m });

/**
 * Two ingress processes on one Redis: each its own connection, store and
 * gate, as two `switchyard` processes behind a load balancer would be.
 */
describe("token budgets, with messages arriving together on two ingress processes", () => {
  const prefix = uniquePrefix("budget");
  let connections: Redis[] = [];
  let stores: Store[] = [];
  beforeAll(() => {
    connections = [connectRedis(), connectRedis()];
    stores = connections.map((redis) => createStore(redis, { prefix }));
  });
  afterAll(async () => {
    await deleteKeysUnder(connections[0] as Redis, prefix);
    for (const c of connections) c.disconnect();
  });

  const gates = (config: SwitchyardConfig, reservationMs?: number) =>
    stores.map(
      (store) =>
        new IngressGate({
          store,
          config: () => config,
          ...(reservationMs !== undefined ? { reservationMs } : {}),
        }),
    );

  /** Meters `messages` all at once, alternating between the two gates. */
  async function race(all: readonly IngressGate[], messages: readonly InboundMessage[]) {
    return Promise.all(messages.map((m, i) => (all[i % all.length] as IngressGate).meter(m)));
  }

  it("admits at most two of 10 messages against a person's budget of one and a half turns", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const messages = Array.from({ length: 10 }, () => message({ user: "race-user" }));
    const verdicts = await race(gates(config), messages);
    const admitted = verdicts.filter((v) => v.kind === "pass").length;
    console.info(`person's budget race: ${admitted} of 10 admitted`);
    expect(admitted).toBe(2);
    for (const v of verdicts.filter((x) => x.kind !== "pass")) {
      expect(v).toMatchObject({ kind: "refused", reason: "token_budget" });
    }
    // Overshoot at most one turn: what the admitted turns hold is under the budget plus one estimate.
    expect(await stores[0]?.reservations.reserved(person(messages[0] as InboundMessage))).toBe(
      2 * TURN,
    );
  });

  it("admits at most two of 10 messages from different people against a workspace's budget of one and a half turns", async () => {
    const config = cfg(`    workspace: ${TURN * 1.5}/day\n    user: ${TURN * 100}/day\n`);
    const messages = Array.from({ length: 10 }, (_, i) =>
      message({ workspace: "race-ws", channel: "race-ws", conversation: "race-ws", user: `p${i}` }),
    );
    const verdicts = await race(gates(config), messages);
    const admitted = messages.filter((_, i) => verdicts[i]?.kind === "pass");
    expect(admitted).toHaveLength(2);
    const first = messages[0] as InboundMessage;
    expect(await stores[0]?.reservations.reserved(workspaceOf(first))).toBe(2 * TURN);
    // A message the workspace refused holds nothing for its sender either.
    for (const m of messages) {
      const held = await stores[1]?.reservations.reserved(person(m));
      expect(held).toBe(admitted.includes(m) ? TURN : 0);
    }
  });

  it("tells a person refused only for the answers in progress that they are, not that the budget is used", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const [one, two] = gates(config);
    expect(await one?.meter(message({ user: "held" }))).toEqual({ kind: "pass" });
    expect(await two?.meter(message({ user: "held" }))).toEqual({ kind: "pass" });
    const refused = await one?.meter(message({ user: "held" }));
    expect(refused?.kind === "refused" && refused.reply).toMatch(
      /^Your daily budget of 1,500 tokens is taken up by what was used today \(0\) and the answers in progress\. Try again once they are done\. It resets at 00:00 UTC/,
    );
  });

  it("settles a turn to its real usage in one step, and admits again when it cost less than reserved", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const [one, two] = gates(config);
    const store = stores[0] as Store;
    const first = message({ user: "settle" });
    const second = message({ user: "settle" });
    expect(await one?.meter(first)).toEqual({ kind: "pass" });
    expect(await two?.meter(second)).toEqual({ kind: "pass" });
    expect((await one?.meter(message({ user: "settle" })))?.kind).toBe("refused");
    // The first turn cost 100 tokens: its 1,000 reserved give way to them.
    const usage = { promptTokens: 80, cachedTokens: 0, completionTokens: 20 };
    const now = Date.now();
    const subject = { address: first, user: "telegram:settle" };
    await store.reservations.settle(store.usage.sharedCountings(subject, usage, 0, now), [first]);
    expect(await store.reservations.reserved(person(first))).toBe(TURN);
    const today = await store.usage.read(person(first), dayPeriod(now));
    expect(today).toMatchObject({ prompt: 80, completion: 20, turns: 1 });
    // 100 used + 1,000 held < 1,500: one more is let in, reserving the person's average turn (100).
    expect(await two?.meter(message({ user: "settle" }))).toEqual({ kind: "pass" });
    expect(await store.reservations.reserved(person(first))).toBe(TURN + 100);
  });

  it("gives a reservation back when a later check refuses the message", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const store = stores[0] as Store;
    const refusing = new IngressGate({
      store,
      config: () => config,
      checks: [async () => ({ reason: "dm_closed", text: "Not now." })],
    });
    const m = message({ user: "later" });
    expect(await refusing.meter(m)).toMatchObject({ kind: "refused", reason: "dm_closed" });
    expect(await store.reservations.reserved(person(m))).toBe(0);
  });

  it("lets a reservation expire on Redis's clock, so a lost message cannot hold a budget forever", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const [one, two] = gates(config, 300);
    const lost = message({ user: "lost" });
    expect(await one?.meter(lost)).toEqual({ kind: "pass" });
    expect(await two?.meter(message({ user: "lost" }))).toEqual({ kind: "pass" });
    expect((await one?.meter(message({ user: "lost" })))?.kind).toBe("refused");
    // Nothing settles them: they lapse by themselves.
    await vi.waitFor(
      async () => expect(await stores[0]?.reservations.reserved(person(lost))).toBe(0),
      { timeout: 5_000, interval: 50 },
    );
    expect(await two?.meter(message({ user: "lost" }))).toEqual({ kind: "pass" });
  });

  it("admits a platform's second delivery of an admitted message without reserving it twice", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const [one, two] = gates(config);
    const m = message({ user: "again" });
    expect(await one?.meter(m)).toEqual({ kind: "pass" });
    expect(await two?.meter(message({ user: "again" }))).toEqual({ kind: "pass" });
    expect(await two?.meter(m)).toEqual({ kind: "pass" });
    expect(await stores[0]?.reservations.reserved(person(m))).toBe(2 * TURN);
  });
});

describe("token-budget reservations of real turns", () => {
  it("settles the reservation to the usage the model reported when the turn ends", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n    workspace: ${TURN * 10}/day\n`);
    const pipe = await startPipeline({ config: () => config });
    try {
      const gate = new IngressGate({ store: pipe.app.store, config: () => config });
      const m = pipe.message("hello");
      pipe.fake.script({ content: "Hi.", usage: { prompt_tokens: 300, completion_tokens: 12 } });
      expect(await gate.meter(m)).toEqual({ kind: "pass" });
      expect(await pipe.app.store.reservations.reserved(person(m))).toBe(TURN);
      await pipe.app.queue.enqueue(m);
      await pipe.posts(1);
      const store = pipe.app.store;
      await vi.waitFor(async () => expect(await store.reservations.reserved(person(m))).toBe(0));
      expect(await store.reservations.reserved(workspaceOf(m))).toBe(0);
      const today = await store.usage.read(person(m), dayPeriod(Date.now()));
      expect(today).toMatchObject({ prompt: 300, completion: 12, turns: 1 });
    } finally {
      await pipe.close();
    }
  });

  it("releases the reservation of a turn given up after failing in place", async () => {
    const config = cfg(`    user: ${TURN * 1.5}/day\n`);
    const pipe = await startPipeline({ config: () => config });
    try {
      const { store, redis } = pipe.app;
      const gate = new IngressGate({ store, config: () => config });
      const m = pipe.message("this one keeps crashing its worker");
      expect(await gate.meter(m)).toEqual({ kind: "pass" });
      // A turn already begun and picked up MAX_STALLED_PICKUPS times without moving on:
      // the next pickup gives it up.
      const checkpoint: Checkpoint = {
        v: 1,
        turnId: "stalled-turn",
        step: 1,
        historyStart: 0,
        inboxCount: 1,
        contractHash: "0",
        loaded: [],
        delivered: [],
      };
      await store.turns.beginTurn(m, [{ role: "user", content: m.text }], checkpoint);
      for (let i = 0; i < MAX_STALLED_PICKUPS; i++) {
        await countPickup(redis, store.keys, m, {
          at: begunAt(checkpoint),
          token: `crashed-${i}`,
          takes: 1,
        });
      }
      await pipe.app.queue.enqueue(m);
      const [post] = await pipe.posts(1);
      expect(post?.text).toBe(GAVE_UP);
      expect(await store.reservations.reserved(person(m))).toBe(0);
    } finally {
      await pipe.close();
    }
  });
});
