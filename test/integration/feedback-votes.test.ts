import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../../src/core/conversation.ts";
import { FEEDBACK_REPLIES, FeedbackDesk } from "../../src/ingress/feedback-desk.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { feedbackId, type Vote } from "../../src/ports/feedback.ts";
import { FEEDBACK_KEEP_MS } from "../../src/store/feedback-store.ts";
import { createStore } from "../../src/store/index.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("feedback-votes");

const address: ConversationAddress = {
  platform: "slack",
  workspace: "T1",
  channel: "C1",
  conversation: "C1:1700000000.1",
};

const TURN = {
  contractHash: "c0ffee",
  model: "fake-model",
  promptTokens: 120,
  cachedTokens: 100,
  completionTokens: 30,
};

/** One click: who pressed which thumb, and how often the platform delivered it. */
interface Click {
  readonly who: 0 | 1 | 2;
  readonly vote: Vote;
  readonly deliveries: number;
}

const clickArb: fc.Arbitrary<Click> = fc.record({
  who: fc.constantFrom(0 as const, 1 as const, 2 as const),
  vote: fc.constantFrom<Vote>("up", "down"),
  deliveries: fc.integer({ min: 1, max: 3 }),
});

async function counted(metrics: Metrics): Promise<Record<Vote, number>> {
  const metric = await metrics.registry.getSingleMetric("switchyard_feedback_total")?.get();
  const of = (vote: Vote) => metric?.values.find((v) => v.labels.vote === vote)?.value ?? 0;
  return { up: of("up"), down: of("down") };
}

async function rated(prefix: string, turnId: string) {
  const store = createStore(db.redis, { prefix });
  const id = feedbackId(conversationKey(address), turnId);
  await store.feedback.rate(address, id, { ...TURN, turnId }, Date.now());
  const metrics = new Metrics();
  const desk = new FeedbackDesk({
    store: store.feedback,
    onVote: (vote) => metrics.countFeedback(vote),
  });
  return { store, id, metrics, desk };
}

describe("votes on an answer, whatever people click", () => {
  it("end in one vote per person, the last they chose, and count each change once", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(clickArb, { minLength: 1, maxLength: 12 }), async (clicks) => {
        round++;
        const turnId = `turn-${round}`;
        const { store, id, metrics, desk } = await rated(`${db.prefix}-${round}`, turnId);
        // The model: each person's vote, and the transitions (a first vote or a change).
        const standing = new Map<number, Vote>();
        const transitions = { up: 0, down: 0 };
        for (const click of clicks) {
          if (standing.get(click.who) !== click.vote) transitions[click.vote]++;
          standing.set(click.who, click.vote);
          for (let i = 0; i < click.deliveries; i++) {
            const answer = await desk.vote({
              id,
              vote: click.vote,
              actor: { id: `slack:U${click.who}`, isPlatformAdmin: false },
              platform: "slack",
            });
            expect(["recorded", "same"]).toContain(answer.kind);
          }
        }
        const [rating] = await store.feedback.ratings(address, [turnId]);
        const votes = Object.fromEntries((rating?.votes ?? []).map((v) => [v.voter, v.vote]));
        expect(votes).toEqual(
          Object.fromEntries([...standing].map(([who, vote]) => [`slack:U${who}`, vote])),
        );
        expect(await counted(metrics)).toEqual(transitions);
      }),
      { numRuns: 40 },
    );
  });

  it("answers a click on an answer whose record expired with a clear note, recording nothing", async () => {
    const { store, id, metrics, desk } = await rated(db.prefix, "turn-old");
    await db.redis.del(store.keys.feedback(address, "turn-old"));
    const answer = await desk.vote({
      id,
      vote: "up",
      actor: { id: "slack:U1", isPlatformAdmin: false },
      platform: "slack",
    });
    expect(answer).toEqual({ kind: "expired", text: FEEDBACK_REPLIES.expired });
    expect(await counted(metrics)).toEqual({ up: 0, down: 0 });
    expect(await db.redis.exists(store.keys.feedback(address, "turn-old"))).toBe(0);
  });
});

describe("what was wrong?", () => {
  const message = (text: string, user = "U1", extra: object = {}): InboundMessage => ({
    ...address,
    user,
    text,
    attachments: [],
    eventId: `ev-${Math.random()}`,
    time: Date.now(),
    ...extra,
  });

  it("asks once on a first 👎, and keeps only that person's next plain message here", async () => {
    const { store, id, desk } = await rated(db.prefix, "turn-why");
    const actor = { id: "slack:U1", isPlatformAdmin: false };
    const down = await desk.vote({ id, vote: "down", actor, platform: "slack" });
    expect(down).toEqual({ kind: "recorded", text: FEEDBACK_REPLIES.ask, ask: true });
    // Someone else's message, or one in another conversation, is never taken.
    expect(await desk.keepReason(message("unrelated", "U2"))).toBe(false);
    expect(
      await desk.keepReason({ ...message("elsewhere"), conversation: "C1:1700000000.2" }),
    ).toBe(false);
    expect(await desk.keepReason(message("It cited the 2019 figures, not 2024."))).toBe(true);
    // One message only: the next goes to the model.
    expect(await desk.keepReason(message("and another thing"))).toBe(false);
    const [rating] = await store.feedback.ratings(address, ["turn-why"]);
    expect(rating?.votes).toEqual([
      expect.objectContaining({
        voter: "slack:U1",
        vote: "down",
        why: "It cited the 2019 figures, not 2024.",
      }),
    ]);
    // Changing to 👍 and back to 👎 does not ask again.
    await desk.vote({ id, vote: "up", actor, platform: "slack" });
    const again = await desk.vote({ id, vote: "down", actor, platform: "slack" });
    expect(again).toEqual({ kind: "recorded", text: FEEDBACK_REPLIES.changed("down") });
  });

  it("lets a command or a message with files through, ending the wait; a 👍 ends it too", async () => {
    const { id, desk } = await rated(db.prefix, "turn-skip");
    const actor = { id: "slack:U1", isPlatformAdmin: false };
    await desk.vote({ id, vote: "down", actor, platform: "slack" });
    expect(await desk.keepReason(message("/new"))).toBe(false);
    expect(await desk.keepReason(message("now this is for the model"))).toBe(false);

    const other = await rated(`${db.prefix}-b`, "turn-files");
    await other.desk.vote({ id: other.id, vote: "down", actor, platform: "slack" });
    const withFile = message("see attached", "U1", {
      attachments: [{ id: "F1", name: "a.png", type: "image/png" }],
    });
    expect(await other.desk.keepReason(withFile)).toBe(false);
    expect(await other.desk.keepReason(message("plain now"))).toBe(false);

    const third = await rated(`${db.prefix}-c`, "turn-up");
    await third.desk.vote({ id: third.id, vote: "down", actor, platform: "slack" });
    await third.desk.vote({ id: third.id, vote: "up", actor, platform: "slack" });
    expect(await third.desk.keepReason(message("a normal question"))).toBe(false);
  });

  it("records a rated answer, the conversation's last and the index to it, each kept 30 days", async () => {
    const { store, id } = await rated(db.prefix, "turn-kept");
    expect(await store.feedback.find(id)).toEqual({ address, turnId: "turn-kept" });
    expect(await store.feedback.last(address)).toBe(id);
    const [rating] = await store.feedback.ratings(address, ["turn-kept"]);
    expect(rating).toMatchObject({ ...TURN, id, turnId: "turn-kept", votes: [] });
    const keys = store.keys;
    for (const key of [
      keys.feedback(address, "turn-kept"),
      keys.feedbackLast(address),
      keys.feedbackIndex(id),
    ]) {
      const ttl = await db.redis.pttl(key);
      expect(ttl).toBeGreaterThan(29 * 86_400_000);
      expect(ttl).toBeLessThanOrEqual(FEEDBACK_KEEP_MS);
    }
  });
});
