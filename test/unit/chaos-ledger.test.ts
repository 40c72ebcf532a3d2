import { describe, expect, it } from "vitest";
import { CLEAN_VERDICT, countLedger, verdict } from "../support/chaos-ledger.ts";
import { answerFor } from "../support/chaos-model.ts";

const whole = (...tags: string[]) => answerFor(tags);
const partial = (...tags: string[]) => answerFor(tags).slice(0, 30);

describe("the chaos ledger", () => {
  it("counts one answer posted again once, however many messages its turn collected", () => {
    // A kill inside a send's window: the streamed first copy stays partway, the resumed turn posts anew.
    const counts = countLedger([
      {
        id: "c1",
        sent: ["msg-c1-1", "msg-c1-2", "msg-c1-3"],
        shown: [
          partial("msg-c1-1", "msg-c1-2", "msg-c1-3"),
          whole("msg-c1-1", "msg-c1-2", "msg-c1-3"),
        ],
      },
    ]);
    expect(counts).toMatchObject({ sent: 3, lost: 0, doubled: 3, doubledAnswers: 1, partials: 1 });
    expect(verdict(counts, 1)).toEqual(CLEAN_VERDICT);
    expect(verdict(counts, 0)).toMatchObject({
      doubledBeyondAllowance: 1,
      stuckPartialsBeyondAllowance: 1,
    });
  });

  it("counts two answers posted again as two, and a clean conversation as none", () => {
    const counts = countLedger([
      {
        id: "c1",
        sent: ["msg-c1-1", "msg-c1-2"],
        shown: [whole("msg-c1-1"), whole("msg-c1-1"), whole("msg-c1-2"), whole("msg-c1-2")],
      },
      { id: "c2", sent: ["msg-c2-1"], shown: [whole("msg-c2-1")] },
    ]);
    expect(counts).toMatchObject({ sent: 3, answeredOnce: 1, doubled: 2, doubledAnswers: 2 });
    expect(verdict(counts, 1).doubledBeyondAllowance).toBe(1);
  });
});
