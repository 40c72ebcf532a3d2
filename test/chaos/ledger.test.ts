import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLEAN_VERDICT, countLedger, verdict } from "../support/chaos-ledger.ts";
import { answerFor, tagOf } from "../support/chaos-model.ts";

/** Messages of one conversation, answered turn by turn: each turn answers a run of them. */
const answered = fc
  .array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 6 })
  .map((turns) => {
    const sent: string[] = [];
    const shown: string[] = [];
    for (const size of turns) {
      const tags = Array.from({ length: size }, (_, i) => tagOf(0, sent.length + i + 1));
      sent.push(...tags);
      shown.push(answerFor(tags));
    }
    return { sent, shown };
  });

const ledger = (sent: string[], shown: string[]) => countLedger([{ id: "c0", sent, shown }]);

describe("the chaos ledger", () => {
  it("finds nothing wrong when every message has one whole answer, in order", () => {
    fc.assert(
      fc.property(answered, ({ sent, shown }) => {
        const counts = ledger(sent, shown);
        expect(verdict(counts)).toEqual(CLEAN_VERDICT);
        expect(counts.answeredOnce).toBe(sent.length);
      }),
    );
  });

  it("counts a message whose answer is missing as lost", () => {
    fc.assert(
      fc.property(answered, fc.nat(), ({ sent, shown }, pick) => {
        const dropped = shown.filter((_, i) => i !== pick % shown.length);
        expect(ledger(sent, dropped).lost).toBeGreaterThan(0);
      }),
    );
  });

  it("counts an answer shown twice, or a stuck copy of its start, as doubled", () => {
    fc.assert(
      fc.property(answered, fc.nat(), fc.boolean(), ({ sent, shown }, pick, stuck) => {
        const answer = shown[pick % shown.length] as string;
        const copy = stuck ? answer.slice(0, answer.indexOf(":") + 1) : answer;
        const counts = ledger(sent, [...shown, copy]);
        expect(counts.doubled).toBeGreaterThan(0);
        if (stuck) expect(counts.partials).toBe(1);
      }),
    );
  });

  it("counts answers shown in another order than their messages were sent as out of order", () => {
    fc.assert(
      fc.property(answered, ({ sent, shown }) => {
        expect(ledger(sent, [...shown].reverse()).outOfOrder).toBeGreaterThan(0);
      }),
    );
  });

  it("counts an apology in a conversation whose messages were all answered", () => {
    const sent = [tagOf(0, 1)];
    const apology = "Sorry — something went wrong. Please send your message again.";
    expect(ledger(sent, [answerFor(sent), apology]).apologies).toBe(1);
    // An apology instead of the answer is the one clear reply of a turn that gave up.
    expect(ledger(sent, [apology])).toMatchObject({ apologies: 0, lost: 1 });
  });
});
