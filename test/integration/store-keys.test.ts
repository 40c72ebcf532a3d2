import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { KeyScheme, StoreInputError } from "../../src/store/index.ts";

// cluster-key-slot ships without types; it is the slot function ioredis's Cluster routes by.
const keySlot = createRequire(import.meta.url)("cluster-key-slot") as (key: string) => number;

const part = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom("T0123", "C9:thread", "{x}", "a}b{c", "chat:-100123", "1700000000.000100"),
);
const addressArb: fc.Arbitrary<ConversationAddress> = fc.record({
  platform: fc.constantFrom("slack", "discord", "telegram", "console"),
  workspace: part,
  channel: part,
  conversation: part,
});

describe("key scheme", () => {
  it("puts every key of a conversation in one cluster slot, whatever its ids hold", () => {
    fc.assert(
      fc.property(addressArb, fc.constantFrom("sy", "sy-staging", "a:b"), (address, prefix) => {
        const keys = new KeyScheme(prefix);
        const tag = keys.conversationTag(address);
        const all = [
          ...Object.values(keys.conversation(address)),
          `${tag}:inbox`,
          `${tag}:lease`,
          keys.approval(address, "abcdefabcdef"),
          keys.turnStream(address, "turn-1"),
        ];
        const slots = new Set(all.map(keySlot));
        expect(slots.size).toBe(1);
        for (const key of all) expect(key.startsWith(`${prefix}:{conv:`)).toBe(true);
      }),
    );
  });

  it("keeps pairing in one slot, and each rate limit in its owner's slot, whatever the ids hold", () => {
    fc.assert(
      fc.property(addressArb, part, (address, user) => {
        const keys = new KeyScheme("sy");
        const access = keys.access();
        const pairing = [access.code("ab12"), access.codeOf(`telegram:${user}`), access.pending];
        expect(
          new Set([...pairing, access.approved, access.requests(user)].map(keySlot)).size,
        ).toBe(1);
        const conversation = keys.rateLimit({ kind: "conversation", address }, 60_000);
        expect(keySlot(conversation)).toBe(keySlot(keys.conversation(address).intent));
        const workspace = keys.rateLimit({ kind: "workspace", ...address }, 60_000);
        expect(keySlot(workspace)).toBe(keySlot(keys.scope("workspace", address)));
        const person = keys.rateLimit({ kind: "user", platform: address.platform, user }, 60_000);
        const notice = keys.refusalNotice(address.platform, user, "limit_user");
        expect(keySlot(person)).toBe(keySlot(notice));
        for (const key of [conversation, workspace, person, notice]) {
          expect(key.startsWith("sy:{")).toBe(true);
          expect(key.slice(4).match(/\{/g)?.length ?? 0).toBe(0);
        }
      }),
    );
  });

  it("keeps each owner's budget reservations in the slot of its usage counters, whatever the ids hold", () => {
    fc.assert(
      fc.property(addressArb, part, (address, user) => {
        const keys = new KeyScheme("sy");
        const owners = [
          { kind: "workspace", ref: address } as const,
          { kind: "user", user: `${address.platform}:${user}` } as const,
        ];
        for (const owner of owners) {
          const { deadlines, tokens } = keys.reservations(owner);
          const day = keys.usage(owner, "d:2026-12-01");
          expect(new Set([deadlines, tokens, day].map(keySlot)).size).toBe(1);
          expect(deadlines).not.toBe(tokens);
        }
      }),
    );
  });

  it("names keys under the prefix with the conversation key as hash tag", () => {
    const keys = new KeyScheme("sy");
    const address = { platform: "slack", workspace: "T1", channel: "C1", conversation: "17.5" };
    expect(keys.conversation(address)).toEqual({
      intent: "sy:{conv:slack:T1:C1:17.5}:intent",
      history: "sy:{conv:slack:T1:C1:17.5}:history",
      historyTrimmed: "sy:{conv:slack:T1:C1:17.5}:history:trimmed",
      checkpoint: "sy:{conv:slack:T1:C1:17.5}:checkpoint",
      contract: "sy:{conv:slack:T1:C1:17.5}:contract",
      settings: "sy:{conv:slack:T1:C1:17.5}:settings",
      reset: "sy:{conv:slack:T1:C1:17.5}:reset",
      lease: "sy:{conv:slack:T1:C1:17.5}:lease",
      pickups: "sy:{conv:slack:T1:C1:17.5}:pickups",
      inbox: "sy:{conv:slack:T1:C1:17.5}:inbox",
      seen: "sy:{conv:slack:T1:C1:17.5}:seen",
      control: "sy:{conv:slack:T1:C1:17.5}:control",
      usageTurn: "sy:{conv:slack:T1:C1:17.5}:usage:turn",
    });
    expect(keys.turnStream(address, "t1")).toBe("sy:{conv:slack:T1:C1:17.5}:stream:t1");
    // Usage counters: a conversation's in its slot, a workspace's with its scopes, a person's alone.
    expect(keys.usage({ kind: "conversation", address }, "d:2026-12-01")).toBe(
      "sy:{conv:slack:T1:C1:17.5}:usage:d:2026-12-01",
    );
    expect(keys.usage({ kind: "workspace", ref: address }, "m:2026-12")).toBe(
      "sy:{ws:slack:T1}:usage:m:2026-12",
    );
    expect(keys.usage({ kind: "user", user: "slack:U1" }, "m:2026-12")).toBe(
      "sy:{user:slack%3AU1}:usage:m:2026-12",
    );
    expect(keys.channelSettings(address)).toBe("sy:{ws:slack:T1}:channel:C1:settings");
    expect(keys.scope("workspace", address)).toBe("sy:{ws:slack:T1}:scope");
    expect(keys.scope("channel", address)).toBe("sy:{ws:slack:T1}:channel:C1:scope");
    // A workspace's and its channels' scopes share a slot: a turn reads both in one script.
    expect(keySlot(keys.scope("workspace", address))).toBe(keySlot(keys.scope("channel", address)));
  });

  it("keeps distinct scopes and conversations apart", () => {
    fc.assert(
      fc.property(addressArb, addressArb, (a, b) => {
        const keys = new KeyScheme();
        const same =
          a.platform === b.platform &&
          a.workspace === b.workspace &&
          a.channel === b.channel &&
          a.conversation === b.conversation;
        expect(keys.conversation(a).intent === keys.conversation(b).intent).toBe(same);
        const sameChannel =
          a.platform === b.platform && a.workspace === b.workspace && a.channel === b.channel;
        expect(keys.scope("channel", a) === keys.scope("channel", b)).toBe(sameChannel);
      }),
    );
  });

  it("refuses a prefix that would move the hash tag", () => {
    expect(() => new KeyScheme("sy{1}")).toThrow(StoreInputError);
    expect(() => new KeyScheme("")).toThrow(/non-empty/);
  });

  it("asks for a channel when a channel scope is named without one", () => {
    const keys = new KeyScheme();
    const workspaceOnly = { platform: "slack", workspace: "T1" } as never;
    expect(() => keys.scope("channel", workspaceOnly)).toThrow(/needs a channel/);
  });
});
