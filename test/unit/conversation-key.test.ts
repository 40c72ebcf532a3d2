import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { conversationKey } from "../../src/core/conversation.ts";

describe("conversationKey", () => {
  it("is each part URI-encoded and joined by colons, for any parts", () => {
    const part = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.constantFrom("C1", "a:b", "x y", "ü", "1700000000.1"),
    );
    fc.assert(
      fc.property(part, part, part, part, (platform, workspace, channel, conversation) => {
        const expected = [platform, workspace, channel, conversation]
          .map((p) => encodeURIComponent(p))
          .join(":");
        expect(conversationKey({ platform, workspace, channel, conversation })).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
