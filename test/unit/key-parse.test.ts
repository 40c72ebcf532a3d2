import { describe, expect, it } from "vitest";
import { schemeKeyKind } from "../../src/store/key-parse.ts";
import { KeyScheme } from "../../src/store/keys.ts";

const keys = new KeyScheme("sy");
const person = { platform: "slack", workspace: "T1", user: "U1" };
const address = { platform: "slack", workspace: "T1", channel: "C1", conversation: "C1:17.5" };

describe("schemeKeyKind", () => {
  it("names the kind of every key KeyScheme builds", () => {
    expect(schemeKeyKind("sy", keys.conversation(address).intent)).toBe("conversation");
    expect(schemeKeyKind("sy", `${keys.conversationTag(address)}:inbox`)).toBe("conversation");
    for (const key of [
      ...Object.values(keys.conversation(address)),
      keys.turnStream(address, "turn-1"),
    ]) {
      expect(schemeKeyKind("sy", key), key).toBe("conversation");
    }
    expect(schemeKeyKind("sy", keys.scope("channel", address))).toBe("workspace");
    expect(schemeKeyKind("sy", keys.scope("global", {}))).toBe("global-scope");
    expect(schemeKeyKind("sy", keys.access().pending)).toBe("access");
    expect(schemeKeyKind("sy", keys.senderTag("slack", "U1"))).toBe("user");
    expect(schemeKeyKind("sy", `${keys.turnQueuePrefix(0, 4)}:turns:wait`)).toBe("queue");
    expect(schemeKeyKind("sy", keys.outbox().stream)).toBe("outbox");
    expect(schemeKeyKind("sy", keys.channelState("telegram", "7").offset)).toBe("channel-state");
    expect(schemeKeyKind("sy", keys.channelState("slack", "T1").event("cmd:1"))).toBe(
      "channel-state",
    );
    expect(schemeKeyKind("sy", keys.thread(address, "17.5"))).toBe("workspace");
    expect(schemeKeyKind("sy", keys.platformThread("discord", "9"))).toBe("thread");
    expect(schemeKeyKind("sy", keys.commandRegistration("discord", "1").guilds)).toBe("commands");
    expect(schemeKeyKind("sy", keys.sentMessage("telegram", "turn:1", 0))).toBe("sent");
    expect(schemeKeyKind("sy", keys.sendBucket("telegram", "123", "messages"))).toBe("send-pace");
    expect(keys.sendBucket("telegram", "123", "paid")).toBe("sy:{pace:telegram:123}:paid");
    for (const key of Object.values(keys.notes(person))) {
      expect(schemeKeyKind("sy", key), key).toBe("memory");
    }
    const reminders = keys.reminders();
    for (const key of [reminders.seq, reminders.call("turn-1.call_1"), reminders.pending(person)]) {
      expect(schemeKeyKind("sy", key), key).toBe("reminders");
    }
    const hooks = keys.hooks();
    for (const key of [hooks.delivery("ci-failed", "build-812"), hooks.body("github", "ab12")]) {
      expect(schemeKeyKind("sy", key), key).toBe("hooks");
    }
    expect(hooks.delivery("ci-failed", "a/b")).toBe("sy:{hooks}:delivery:ci-failed:a%2Fb");
  });

  it("keeps the layouts deployments hold", () => {
    expect(keys.channelState("telegram", "7").offset).toBe("sy:telegram:7:offset");
    expect(keys.channelState("discord", "5").event("message:1")).toBe(
      "sy:discord:5:event:message:1",
    );
    expect(keys.thread(address, "17.5")).toBe("sy:{ws:slack:T1}:thread:C1:17.5");
    expect(keys.platformThread("discord", "9")).toBe("sy:discord:thread:9");
    expect(keys.commandRegistration("discord", "1")).toEqual({
      guilds: "sy:discord:commands:1:guilds",
      global: "sy:discord:commands:1:global",
    });
    expect(keys.sentMessage("telegram", "k", 2)).toBe("sy:telegram:sent:k:2");
    // The inbox's, the turn signals', the usage guard's and the streamed answer's, as workers built them by hand.
    const tag = "sy:{conv:slack:T1:C1:C1%3A17.5}";
    expect(keys.conversationTag(address)).toBe(tag);
    const conversation = keys.conversation(address);
    expect(conversation.inbox).toBe(`${tag}:inbox`);
    expect(conversation.seen).toBe(`${tag}:seen`);
    expect(conversation.control).toBe(`${tag}:control`);
    expect(conversation.usageTurn).toBe(`${tag}:usage:turn`);
    expect(keys.turnStream(address, "turn-1")).toBe(`${tag}:stream:turn-1`);
    expect(keys.outbox().sent("k")).toBe("sy:{outbox}:sent:k");
    expect(keys.notes({ platform: "slack", workspace: "T 1", user: "U:1" })).toEqual({
      notes: "sy:{mem:slack:T%201:U%3A1}:notes",
      topics: "sy:{mem:slack:T%201:U%3A1}:topics",
      seq: "sy:{mem:slack:T%201:U%3A1}:seq",
      calls: "sy:{mem:slack:T%201:U%3A1}:calls",
    });
    expect(keys.reminders().seq).toBe("sy:{reminders}:seq");
    // By the SHA-1 of the call key.
    expect(keys.reminders().call("turn-1.call_1")).toBe(
      "sy:{reminders}:call:42bc1923cece65aff009a38918c604ef0ed3b40b",
    );
    expect(keys.reminders().pending(person)).toBe("sy:{rem:slack:T1:U1}:pending");
  });

  it("finds no kind for a key built by hand", () => {
    for (const key of [
      "sy:mine:cache",
      "sy:telegram:7",
      "sy:telegram:7:cursor",
      "sy:{conv:x}y",
      "sy:{memo:slack:T1:U1}:notes",
      "sy:{reminders}seq",
      "other:{conv:slack:T1:C1:1}:intent",
      "sy:slack:{T1}:event:1",
    ]) {
      expect(schemeKeyKind("sy", key), key).toBeUndefined();
    }
  });
});
