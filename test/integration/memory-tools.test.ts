import { describe, expect, it } from "vitest";
import type { AnyTool, ToolContext } from "../../src/core/tools/tool.ts";
import { memoryTools } from "../../src/tools/memory/index.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { keysUnder, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("memory");

const ada: Omit<ToolContext, "signal"> = {
  platform: "slack",
  workspace: "T1",
  channel: "C1",
  conversation: "C1-1700.1",
  user: "U_ADA",
};
const call = { id: "call_1", type: "function" as const, function: { name: "x", arguments: "{}" } };

function tools(limits = { maxNotes: 100, maxNoteLength: 500 }) {
  const [remember, recall, forget] = memoryTools({
    redis: db.redis,
    prefix: db.prefix,
    limits,
  }) as [AnyTool, AnyTool, AnyTool];
  /** Calls a tool as a turn does: arguments checked against its schema, errors turned into answers. */
  const run = async (tool: AnyTool, args: unknown, ctx = ada) =>
    (await runTool(tool, args, call, ctx, { timeoutMs: 5_000 })).output;
  return {
    remember: (args: unknown, ctx = ada) => run(remember, args, ctx),
    recall: (args: unknown = {}, ctx = ada) => run(recall, args, ctx),
    forget: (args: unknown, ctx = ada) => run(forget, args, ctx),
  };
}

describe("memory tools on real Redis", () => {
  it("remembers notes with short stable ids and recalls them, oldest first", async () => {
    const memory = tools();
    expect(await memory.remember({ text: "Prefers answers in German." })).toBe(
      'Remembered m1: "Prefers answers in German." (1 of 100 notes used).',
    );
    expect(await memory.remember({ text: "Lives in Berlin", topic: "Home" })).toBe(
      'Remembered m2 [home]: "Lives in Berlin" (2 of 100 notes used).',
    );
    expect(await memory.recall()).toBe(
      '2 notes:\n<untrusted source="saved notes">\n- m1: "Prefers answers in German."\n- m2 [home]: "Lives in Berlin"\n</untrusted>',
    );
    expect(await memory.recall({ query: "berlin" })).toBe(
      '1 of 2 notes match "berlin":\n<untrusted source="saved notes">\n- m2 [home]: "Lives in Berlin"\n</untrusted>',
    );
    expect(await memory.recall({ query: "cats" })).toMatch(
      /^No note matches "cats" \(2 notes saved/,
    );
  });

  it("replaces the note under a topic in place, keeping its id", async () => {
    const memory = tools();
    await memory.remember({ text: "Lives in Berlin", topic: "home" });
    await memory.remember({ text: "Likes tea" });
    expect(await memory.remember({ text: "Moved to Lisbon", topic: " HOME " })).toBe(
      'Updated m1 [home]: "Moved to Lisbon" (2 of 100 notes used).',
    );
    expect(await memory.recall()).toBe(
      '2 notes:\n<untrusted source="saved notes">\n- m1 [home]: "Moved to Lisbon"\n- m2: "Likes tea"\n</untrusted>',
    );
  });

  it("stores a note once when a resumed turn repeats the same call", async () => {
    const memory = tools();
    const repeat = { ...ada, callKey: "turn-3.call_9" };
    const first = await memory.remember({ text: "Allergic to nuts" }, repeat);
    expect(await memory.remember({ text: "Allergic to nuts" }, repeat)).toBe(first);
    expect(await memory.recall()).toBe(
      '1 note:\n<untrusted source="saved notes">\n- m1: "Allergic to nuts"\n</untrusted>',
    );
    // Another call (a new request) is another note.
    await memory.remember({ text: "Allergic to nuts" }, { ...ada, callKey: "turn-4.call_1" });
    expect(await memory.recall()).toMatch(/^2 notes:/);
  });

  it("refuses an over-long note, saying the limit, and stores nothing", async () => {
    const memory = tools({ maxNotes: 10, maxNoteLength: 20 });
    const answer = await memory.remember({ text: "x".repeat(21) });
    expect(answer).toBe(
      "That note is 21 characters; a note may be at most 20. Shorten it to the essentials (or split it into separate notes) and remember it again.",
    );
    expect(await memory.recall()).toBe("No notes are saved for this person yet.");
    // Characters, not UTF-16 units: twenty emoji fit.
    expect(await memory.remember({ text: "🐈".repeat(20) })).toMatch(/^Remembered m1/);
  });

  it("never exceeds the cap when many remembers race, and says to forget something", async () => {
    const memory = tools({ maxNotes: 5, maxNoteLength: 500 });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => memory.remember({ text: `fact ${i}` })),
    );
    expect(answers.filter((a) => a.startsWith("Remembered"))).toHaveLength(5);
    const refusals = answers.filter((a) => !a.startsWith("Remembered"));
    expect(refusals).toHaveLength(35);
    for (const refusal of refusals) {
      expect(refusal).toBe(
        "Memory is full: 5 of 5 notes are stored for this person. Nothing was saved. Call recall to see the notes and forget one that is no longer needed, then remember again.",
      );
    }
    expect(await memory.recall()).toMatch(/^5 notes:/);
    // A topic already in use still updates at the cap: it adds nothing.
    const keyed = tools({ maxNotes: 1, maxNoteLength: 500 });
    await keyed.remember({ text: "a", topic: "t" }, { ...ada, user: "U_TOPIC" });
    expect(await keyed.remember({ text: "b", topic: "t" }, { ...ada, user: "U_TOPIC" })).toMatch(
      /^Updated/,
    );
  });

  it("keeps each person's notes apart, per workspace", async () => {
    const memory = tools();
    await memory.remember({ text: "Ada in T1" });
    await memory.remember({ text: "Ada in T2" }, { ...ada, workspace: "T2" });
    await memory.remember({ text: "Bob in T1" }, { ...ada, user: "U_BOB" });
    await memory.remember({ text: "Ada on discord" }, { ...ada, platform: "discord" });
    expect(await memory.recall()).toBe(
      '1 note:\n<untrusted source="saved notes">\n- m1: "Ada in T1"\n</untrusted>',
    );
    expect(await memory.recall({}, { ...ada, workspace: "T2" })).toBe(
      '1 note:\n<untrusted source="saved notes">\n- m1: "Ada in T2"\n</untrusted>',
    );
    expect(await memory.recall({}, { ...ada, user: "U_BOB" })).toBe(
      '1 note:\n<untrusted source="saved notes">\n- m1: "Bob in T1"\n</untrusted>',
    );
    // Bob cannot forget Ada's note by its id: his m1 is his own.
    await memory.forget({ id: "m1" }, { ...ada, user: "U_BOB" });
    expect(await memory.recall()).toBe(
      '1 note:\n<untrusted source="saved notes">\n- m1: "Ada in T1"\n</untrusted>',
    );
    expect(await memory.recall({}, { ...ada, channel: "C2", conversation: "C2" })).toBe(
      '1 note:\n<untrusted source="saved notes">\n- m1: "Ada in T1"\n</untrusted>',
    );
  });

  it("forgets one note by id, or all of them only when asked explicitly", async () => {
    const memory = tools();
    await memory.remember({ text: "one", topic: "first" });
    await memory.remember({ text: "two" });
    await memory.remember({ text: "three" });
    expect(await memory.forget({ id: "M1" })).toBe('Forgot m1 [first]: "one".');
    expect(await memory.forget({ id: "m1" })).toBe(
      'There is no note "m1". Call recall to see the notes and their ids, then forget one of those.',
    );
    expect(await memory.forget({})).toMatch(/^Say which note to forget/);
    expect(await memory.forget({ all: false })).toMatch(/^Say which note to forget/);
    expect(await memory.recall()).toMatch(/^2 notes:/);
    // The forgotten note's topic is free again, and ids are never reused.
    expect(await memory.remember({ text: "uno", topic: "first" })).toMatch(
      /^Remembered m4 \[first\]/,
    );
    expect(await memory.forget({ all: true })).toBe("Forgot all 3 notes.");
    expect(await memory.recall()).toBe("No notes are saved for this person yet.");
    expect(await memory.remember({ text: "fresh" })).toMatch(/^Remembered m5:/);
  });

  it("keeps every key under the prefix, in the person's own hash slot", async () => {
    const memory = tools();
    await memory.remember({ text: "x", topic: "t" });
    const keys = await keysUnder(db.redis, db.prefix);
    expect(keys).toEqual([
      `${db.prefix}:{mem:slack:T1:U_ADA}:notes`,
      `${db.prefix}:{mem:slack:T1:U_ADA}:seq`,
      `${db.prefix}:{mem:slack:T1:U_ADA}:topics`,
    ]);
  });
});
