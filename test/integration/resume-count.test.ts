import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  countStalledResume,
  GAVE_UP,
  GAVE_UP_PARTIAL,
  giveUpText,
} from "../../src/workers/resume.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("resume");
const address = { platform: "console", workspace: "w", channel: "c", conversation: "k" };
const checkpoint: Checkpoint = {
  v: 1,
  turnId: "t1",
  step: 1,
  historyStart: 0,
  inboxCount: 1,
  contractHash: "h",
  loaded: [],
  delivered: [],
};

describe("counting a turn's pickups after crashes", () => {
  it("counts only pickups that find the turn where the last one left it", async () => {
    const keys = new KeyScheme(db.prefix);
    const count = (c: Checkpoint) => countStalledResume(db.redis, keys, address, c);
    expect(await count(checkpoint)).toBe(1);
    expect(await count(checkpoint)).toBe(2);
    // A step was committed between these pickups: the turn is moving, start over.
    expect(await count({ ...checkpoint, step: 2 })).toBe(1);
    expect(await count({ ...checkpoint, step: 2 })).toBe(2);
    // So does a part delivered, or calls recorded before running.
    expect(await count({ ...checkpoint, step: 2, delivered: ["ts1"] })).toBe(1);
    const calling = { step: 3, message: { role: "assistant" as const, content: null } };
    expect(await count({ ...checkpoint, step: 2, delivered: ["ts1"], calling })).toBe(1);
    // Another turn of the same conversation has its own count.
    expect(await count({ ...checkpoint, turnId: "t2" })).toBe(1);
  });
});

describe("what a turn given up says", () => {
  it("delivers the answer when only delivery was left", () => {
    const turn = [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "Hello there." },
    ];
    expect(giveUpText(turn, "Hello")).toBe("Hello there.");
  });

  it("finishes a streamed partial with a note, or apologises when nothing was shown", () => {
    const turn = [
      { role: "user" as const, content: "hi" },
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          { id: "c", type: "function" as const, function: { name: "x", arguments: "{}" } },
        ],
      },
    ];
    expect(giveUpText(turn, "Half of the")).toBe(`Half of the\n\n${GAVE_UP_PARTIAL}`);
    expect(giveUpText(turn, undefined)).toBe(GAVE_UP);
    expect(giveUpText(turn, "  ")).toBe(GAVE_UP);
  });
});
