import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseApprovalPayload } from "../../src/ports/approvals.ts";
import {
  feedbackControls,
  feedbackId,
  feedbackPayload,
  isFeedbackPair,
  isFeedbackPayload,
  parseFeedbackPayload,
  type Vote,
  voterOf,
} from "../../src/ports/feedback.ts";

const idArb = fc.string({
  unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789"),
  minLength: 12,
  maxLength: 12,
});
const voteArb = fc.constantFrom<Vote>("up", "down");

describe("a feedback button's payload", () => {
  it("reads back as the id and vote it was made from, within Telegram's 64 bytes", () => {
    fc.assert(
      fc.property(idArb, voteArb, (id, vote) => {
        const payload = feedbackPayload(id, vote);
        expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(64);
        expect(parseFeedbackPayload(payload)).toEqual({ id, vote });
        expect(isFeedbackPayload(payload)).toBe(true);
        // Never mistaken for an approval's.
        expect(parseApprovalPayload(payload)).toBeUndefined();
      }),
    );
  });

  it("reads nothing it did not make: any other string is undefined, never a guess", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const parsed = parseFeedbackPayload(text);
        if (parsed !== undefined) expect(feedbackPayload(parsed.id, parsed.vote)).toBe(text);
      }),
    );
    for (const bad of [
      "fb:",
      "fb:short:u",
      "fb:k3x9q2m7p1ab:x",
      "fb:K3X9Q2M7P1AB:u",
      "ap:k3x9q2m7p1ab:a",
      "fb:k3x9q2m7p1ab:u ",
    ]) {
      expect(parseFeedbackPayload(bad), bad).toBeUndefined();
    }
  });

  it("carries an id derived from the conversation and the turn: the same in every run, 12 of [a-z0-9]", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (conversation, turn, other) => {
        const id = feedbackId(conversation, turn);
        expect(id).toMatch(/^[a-z0-9]{12}$/);
        expect(feedbackId(conversation, turn)).toBe(id);
        if (other !== turn) expect(feedbackId(conversation, other)).not.toBe(id);
      }),
    );
  });

  it("makes the 👍 / 👎 pair a channel can recognise", () => {
    const controls = feedbackControls("k3x9q2m7p1ab");
    expect(controls).toEqual([
      { payload: "fb:k3x9q2m7p1ab:u", label: "👍" },
      { payload: "fb:k3x9q2m7p1ab:d", label: "👎" },
    ]);
    expect(isFeedbackPair(controls)).toBe(true);
    expect(isFeedbackPair([{ payload: "ap:k3x9q2m7p1ab:a", label: "Approve" }])).toBe(false);
  });

  it("names a voter by platform and id, qualified once", () => {
    expect(voterOf("slack", "slack:U1")).toBe("slack:U1");
    expect(voterOf("slack", "U1")).toBe("slack:U1");
    expect(voterOf("console", "console-user")).toBe("console:console-user");
  });
});
