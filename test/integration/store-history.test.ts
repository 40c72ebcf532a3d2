import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import { estimateTokens } from "../../src/core/budget/estimate.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { canonicalJson } from "../../src/core/tools/canonical-json.ts";
import { createStore, StoreInputError } from "../../src/store/index.ts";
import { connectRedis, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("history");

let conversations = 0;
function newAddress(): ConversationAddress {
  conversations++;
  return { platform: "discord", workspace: "G1", channel: "C1", conversation: `h${conversations}` };
}

const text = fc.string({ maxLength: 60, unit: "grapheme" });

type GroupSpec =
  | { kind: "user"; content: string }
  | { kind: "assistant"; content: string }
  | { kind: "tools"; content: string | null; calls: Array<{ args: string; result: string }> };

const groupArb: fc.Arbitrary<GroupSpec> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), content: text }),
  fc.record({ kind: fc.constant("assistant" as const), content: text }),
  fc.record({
    kind: fc.constant("tools" as const),
    content: fc.option(text, { nil: null }),
    calls: fc.array(fc.record({ args: text, result: text }), { minLength: 1, maxLength: 3 }),
  }),
);

/** A history as whole groups, tool call ids unique across it; results sometimes out of call order. */
function buildGroups(specs: readonly GroupSpec[], shuffle: boolean): ChatMessage[][] {
  return specs.map((spec, g): ChatMessage[] => {
    if (spec.kind === "user") return [{ role: "user", content: spec.content }];
    if (spec.kind === "assistant") return [{ role: "assistant", content: spec.content }];
    const calls = spec.calls.map((call, k) => ({
      id: `call_${g}_${k}`,
      type: "function" as const,
      function: { name: "fetch_url", arguments: JSON.stringify({ url: call.args }) },
    }));
    const results: ChatMessage[] = spec.calls.map((call, k) => ({
      role: "tool",
      tool_call_id: `call_${g}_${k}`,
      content: call.result,
    }));
    if (shuffle) results.reverse();
    return [{ role: "assistant", content: spec.content, tool_calls: calls }, ...results];
  });
}

const cost = (entries: readonly string[]) => entries.reduce((sum, e) => sum + estimateTokens(e), 0);

function pairsAreWhole(messages: readonly ChatMessage[]): boolean {
  const answered = new Set<string>();
  const called = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant")
      for (const call of message.tool_calls ?? []) called.add(call.id);
    if (message.role === "tool") {
      if (!called.has(message.tool_call_id)) return false;
      answered.add(message.tool_call_id);
    }
  }
  return answered.size === called.size;
}

describe("history store", () => {
  it("stores each message as canonical JSON and loads it back as it was", async () => {
    const { history, keys } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    const messages: ChatMessage[] = [
      { role: "user", content: "weather in Oslo?", name: "ana" },
      {
        content: null,
        role: "assistant",
        tool_calls: [
          {
            type: "function",
            id: "c1",
            function: { arguments: '{"city":"Oslo"}', name: "weather" },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "4°C, rain ☔" },
      { role: "assistant", content: "4°C and rain." },
    ];
    expect(await history.append(address, messages)).toBe(4);
    expect(await history.length(address)).toBe(4);
    expect(await history.load(address)).toEqual(messages);
    expect(await db.redis.lrange(keys.conversation(address).history, 0, -1)).toEqual(
      messages.map((message) => canonicalJson(message)),
    );
  });

  it("skips an unreadable entry with a warning instead of failing the load", async () => {
    const warnings: string[] = [];
    const { history, keys } = createStore(db.redis, {
      prefix: db.prefix,
      logger: { warn: (message) => warnings.push(message) },
    });
    const address = newAddress();
    await history.append(address, [{ role: "user", content: "hi" }]);
    await db.redis.rpush(keys.conversation(address).history, "{broken", '{"role":"robot"}');
    expect(await history.load(address)).toEqual([{ role: "user", content: "hi" }]);
    expect(warnings).toHaveLength(2);
  });

  it("compacts by dropping the oldest whole groups only: pairs whole, last groups kept, bytes untouched", async () => {
    const { history, keys } = createStore(db.redis, { prefix: db.prefix });
    const arb = fc.record({
      specs: fc.array(groupArb, { maxLength: 16 }),
      shuffle: fc.boolean(),
      budget: fc.double({ min: 0, max: 1.1, noNaN: true }),
      keepLast: fc.nat({ max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ specs, shuffle, budget, keepLast }) => {
        const address = newAddress();
        const groups = buildGroups(specs, shuffle);
        await history.append(address, groups.flat());
        const key = keys.conversation(address).history;
        const before = await db.redis.lrange(key, 0, -1);
        const maxTokens = Math.floor(cost(before) * budget);

        const result = await history.compact(address, { maxTokens, keepLast });
        const after = await db.redis.lrange(key, 0, -1);

        expect(after).toEqual(before.slice(result.dropped));
        expect(result.tokens).toBe(cost(after));
        // The cut falls between generated groups.
        const boundaries = [0];
        for (const group of groups) boundaries.push((boundaries.at(-1) as number) + group.length);
        const droppedGroups = boundaries.indexOf(result.dropped);
        expect(droppedGroups).toBeGreaterThanOrEqual(0);
        expect(groups.length - droppedGroups).toBeGreaterThanOrEqual(
          Math.min(keepLast, groups.length),
        );
        expect(pairsAreWhole(await history.load(address))).toBe(true);
        // It drops as little as it can and as much as it needs.
        if (droppedGroups > 0) {
          const lastDropped = before.slice(boundaries[droppedGroups - 1], result.dropped);
          expect(cost(after) + cost(lastDropped)).toBeGreaterThan(maxTokens);
        }
        if (cost(after) > maxTokens) {
          expect(droppedGroups).toBe(Math.max(0, groups.length - keepLast));
        }
      }),
      { numRuns: 120 },
    );
  });

  it("does nothing when history fits", async () => {
    const { history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await history.append(address, [{ role: "user", content: "short" }]);
    expect(await history.compact(address, { maxTokens: 1_000, keepLast: 0 })).toEqual({
      dropped: 0,
      tokens: cost([canonicalJson({ role: "user", content: "short" })]),
    });
    expect(await history.length(address)).toBe(1);
  });

  it("never drops tool calls at the end that still wait for results", async () => {
    const { history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    const waiting: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "a", type: "function", function: { name: "x", arguments: "{}" } },
        { id: "b", type: "function", function: { name: "y", arguments: "{}" } },
      ],
    };
    await history.append(address, [
      { role: "user", content: "one" },
      waiting,
      { role: "tool", tool_call_id: "a", content: "done" },
    ]);
    const result = await history.compact(address, { maxTokens: 0, keepLast: 0 });
    expect(result.dropped).toBe(1);
    expect(await history.load(address)).toEqual([
      waiting,
      { role: "tool", tool_call_id: "a", content: "done" },
    ]);
  });

  it("never loses a message appended while compaction runs", async () => {
    const appender = connectRedis();
    try {
      const { history, keys } = createStore(db.redis, { prefix: db.prefix });
      const other = createStore(appender, { prefix: db.prefix }).history;
      const address = newAddress();
      const filler = "lorem ipsum dolor sit amet ".repeat(20);
      let appended = 0;
      for (let round = 0; round < 40; round++) {
        await history.append(address, [{ role: "user", content: `${round} ${filler}` }]);
        appended++;
        const racing = Array.from({ length: 3 }, (_, i) => {
          appended++;
          return other.append(address, [{ role: "assistant", content: `${round}.${i}` }]);
        });
        await Promise.all([history.compact(address, { maxTokens: 600, keepLast: 1 }), ...racing]);
      }
      const conversationKeys = keys.conversation(address);
      const kept = await db.redis.llen(conversationKeys.history);
      const trimmed = Number(await db.redis.get(conversationKeys.historyTrimmed));
      expect(trimmed).toBeGreaterThan(0);
      expect(kept + trimmed).toBe(appended);
      const last = await history.load(address);
      expect(last.slice(-3).map((message) => message.content)).toEqual(["39.0", "39.1", "39.2"]);
    } finally {
      await appender.quit();
    }
  });

  it("drops no more when two compactions race than one alone would", async () => {
    const second = connectRedis();
    try {
      const { history } = createStore(db.redis, { prefix: db.prefix });
      const rival = createStore(second, { prefix: db.prefix }).history;
      const messages: ChatMessage[] = Array.from({ length: 30 }, (_, i) => ({
        role: "user",
        content: `message ${i} ${"words ".repeat(10)}`,
      }));
      const alone = newAddress();
      const raced = newAddress();
      await history.append(alone, messages);
      await history.append(raced, messages);
      const limits = { maxTokens: 200, keepLast: 2 };
      await history.compact(alone, limits);
      await Promise.all([history.compact(raced, limits), rival.compact(raced, limits)]);
      expect(await history.load(raced)).toEqual(await history.load(alone));
    } finally {
      await second.quit();
    }
  });

  it("refuses limits that make no sense", async () => {
    const { history } = createStore(db.redis, { prefix: db.prefix });
    await expect(history.compact(newAddress(), { maxTokens: -1, keepLast: 0 })).rejects.toThrow(
      StoreInputError,
    );
    await expect(history.compact(newAddress(), { maxTokens: 10, keepLast: 1.5 })).rejects.toThrow(
      /keepLast/,
    );
  });
});
