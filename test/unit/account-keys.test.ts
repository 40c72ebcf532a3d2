import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  accountPlatform,
  type ConversationAddress,
  conversationKey,
  parseConversationKey,
} from "../../src/core/conversation.ts";
import { schemeKeyKind } from "../../src/store/key-parse.ts";
import { KeyScheme } from "../../src/store/keys.ts";

const part = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("C1", "a:b", "x y", "a@b", "@", "%40", "ü", "1700000000.1"),
);
const address: fc.Arbitrary<ConversationAddress> = fc
  .record({
    platform: part,
    account: fc.option(
      part.filter((a) => a !== ""),
      { nil: undefined },
    ),
    workspace: part,
    channel: part,
    conversation: part,
  })
  .map(({ account, ...rest }) => (account === undefined ? rest : { ...rest, account }));

describe("conversation keys with accounts", () => {
  it("read back as the address they were made from, account or not", () => {
    fc.assert(
      fc.property(address, (a) => {
        expect(parseConversationKey(conversationKey(a))).toEqual(a);
      }),
      { numRuns: 3000 },
    );
  });

  it("keep every key made before accounts the same: no account, no @", () => {
    fc.assert(
      fc.property(address, (a) => {
        const { account: _, ...plain } = a;
        expect(conversationKey(plain)).toBe(
          [a.platform, a.workspace, a.channel, a.conversation].map(encodeURIComponent).join(":"),
        );
        expect(accountPlatform(plain)).toBe(encodeURIComponent(a.platform));
      }),
    );
  });

  it("never give two accounts of one chat the same key", () => {
    fc.assert(
      fc.property(address, part, (a, other) => {
        fc.pre(other !== "" && other !== a.account);
        expect(conversationKey({ ...a, account: other })).not.toBe(conversationKey(a));
      }),
    );
  });

  it("writes the account after the platform", () => {
    const where = {
      platform: "telegram",
      workspace: "-100",
      channel: "-100",
      conversation: "-100",
    };
    expect(conversationKey({ ...where, account: "sales" })).toBe("telegram@sales:-100:-100:-100");
    expect(conversationKey(where)).toBe("telegram:-100:-100:-100");
  });

  it("answers undefined for any string that is not a key, and never throws", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const found = parseConversationKey(text);
        if (found) expect(found.account).not.toBe("");
      }),
      { numRuns: 3000 },
    );
    for (const bad of ["slack:T1:C1", "slack@:T1:C1:1", "a@b@c:1:2:3", "slack:%E0:C1:1"]) {
      expect(parseConversationKey(bad), bad).toBeUndefined();
    }
  });

  it("puts an account's keys in the conversation's own slot, which key-parse recognises", () => {
    const keys = new KeyScheme("sy");
    fc.assert(
      fc.property(address, (a) => {
        expect(schemeKeyKind("sy", keys.conversation(a).intent)).toBe("conversation");
      }),
    );
  });
});
