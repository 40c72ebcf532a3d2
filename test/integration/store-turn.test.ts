import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { createStore, StoreInputError } from "../../src/store/index.ts";
import { connectRedis, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("turn");

let conversations = 0;
function newAddress(): ConversationAddress {
  conversations++;
  return {
    platform: "telegram",
    workspace: "-100",
    channel: "-100",
    conversation: `c${conversations}`,
  };
}

function checkpoint(turnId: string, step: number, extra: Partial<Checkpoint> = {}): Checkpoint {
  return {
    v: 1,
    turnId,
    step,
    historyStart: 0,
    inboxCount: 1,
    contractHash: "h1",
    loaded: [],
    delivered: [],
    ...extra,
  };
}

function stepMessages(step: number): ChatMessage[] {
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `s${step}`, type: "function", function: { name: "recall", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: `s${step}`, content: `result ${step}` },
  ];
}

describe("turn store", () => {
  it("has no checkpoint before a turn, and reads back the one written", async () => {
    const { turns } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    expect(await turns.readCheckpoint(address)).toBeUndefined();
    const start = checkpoint("turn-1", 0, { delivering: { parts: 2, digest: "abc" } });
    expect(await turns.writeCheckpoint(address, start)).toBe(true);
    expect(await turns.readCheckpoint(address)).toEqual(start);
  });

  it("commits a step's messages and its checkpoint together", async () => {
    const { turns, history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await history.append(address, [{ role: "user", content: "hello" }]);
    await turns.writeCheckpoint(address, checkpoint("turn-1", 0, { historyStart: 1 }));
    expect(
      await turns.commitStep(
        address,
        stepMessages(1),
        checkpoint("turn-1", 1, { historyStart: 1 }),
      ),
    ).toBe(true);
    expect(
      await turns.commitStep(
        address,
        stepMessages(2),
        checkpoint("turn-1", 2, { historyStart: 1 }),
      ),
    ).toBe(true);
    expect(await history.load(address)).toEqual([
      { role: "user", content: "hello" },
      ...stepMessages(1),
      ...stepMessages(2),
    ]);
    expect((await turns.readCheckpoint(address))?.step).toBe(2);
  });

  it("never shows a step's messages without its checkpoint, or the reverse", async () => {
    const reader = connectRedis();
    try {
      const { turns, keys } = createStore(db.redis, { prefix: db.prefix });
      const address = newAddress();
      const conversationKeys = keys.conversation(address);
      await turns.writeCheckpoint(address, checkpoint("turn-1", 0));
      let done = false;
      const observations: Array<[number, number]> = [];
      const watching = (async () => {
        while (!done) {
          const replies = await reader
            .multi()
            .llen(conversationKeys.history)
            .get(conversationKeys.checkpoint)
            .exec();
          const length = replies?.[0]?.[1] as number;
          const stored = JSON.parse(replies?.[1]?.[1] as string) as Checkpoint;
          observations.push([length, stored.step]);
        }
      })();
      for (let step = 1; step <= 60; step++) {
        await turns.commitStep(address, stepMessages(step), checkpoint("turn-1", step));
      }
      done = true;
      await watching;
      expect(observations.length).toBeGreaterThan(0);
      for (const [length, step] of observations) expect(length).toBe(step * 2);
    } finally {
      await reader.quit();
    }
  });

  it("refuses a stale writer: another turn, a repeated step, a skipped step, or no turn at all", async () => {
    const { turns, history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    expect(await turns.commitStep(address, stepMessages(1), checkpoint("turn-1", 1))).toBe(false);
    expect(await turns.readCheckpoint(address)).toBeUndefined();

    await turns.writeCheckpoint(address, checkpoint("turn-2", 0));
    expect(await turns.commitStep(address, stepMessages(1), checkpoint("turn-1", 1))).toBe(false);
    expect(await turns.commitStep(address, stepMessages(2), checkpoint("turn-2", 2))).toBe(false);
    expect(await turns.commitStep(address, stepMessages(1), checkpoint("turn-2", 1))).toBe(true);
    expect(await turns.commitStep(address, stepMessages(1), checkpoint("turn-2", 1))).toBe(false);

    expect(await history.load(address)).toEqual(stepMessages(1));
    expect(await turns.readCheckpoint(address)).toEqual(checkpoint("turn-2", 1));
  });

  it("lets exactly one of two workers racing on the same step commit it", async () => {
    const second = connectRedis();
    try {
      const a = createStore(db.redis, { prefix: db.prefix });
      const b = createStore(second, { prefix: db.prefix });
      const address = newAddress();
      await a.turns.writeCheckpoint(address, checkpoint("turn-1", 0));
      const results = await Promise.all([
        a.turns.commitStep(
          address,
          stepMessages(1),
          checkpoint("turn-1", 1, { contractHash: "a" }),
        ),
        b.turns.commitStep(
          address,
          stepMessages(1),
          checkpoint("turn-1", 1, { contractHash: "b" }),
        ),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await a.history.length(address)).toBe(2);
    } finally {
      await second.quit();
    }
  });

  it("commits a step with more messages than Lua can unpack at once", async () => {
    const { turns, history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await turns.writeCheckpoint(address, checkpoint("turn-1", 0));
    const many: ChatMessage[] = Array.from({ length: 2_500 }, (_, i) => ({
      role: "user",
      content: `m${i}`,
    }));
    expect(await turns.commitStep(address, many, checkpoint("turn-1", 1))).toBe(true);
    expect(await history.load(address)).toEqual(many);
  });

  it("guards delivery bookkeeping when asked to, and clears only its own turn", async () => {
    const { turns } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await turns.writeCheckpoint(address, checkpoint("turn-1", 3));
    const delivered = checkpoint("turn-1", 3, { delivered: ["ts-1"], done: true });
    expect(await turns.writeCheckpoint(address, delivered, { turnId: "turn-0", step: 3 })).toBe(
      false,
    );
    expect(await turns.writeCheckpoint(address, delivered, { turnId: "turn-1", step: 2 })).toBe(
      false,
    );
    expect(await turns.writeCheckpoint(address, delivered, { turnId: "turn-1", step: 3 })).toBe(
      true,
    );
    expect(await turns.readCheckpoint(address)).toEqual(delivered);

    expect(await turns.clearCheckpoint(address, "turn-0")).toBe(false);
    expect(await turns.readCheckpoint(address)).toEqual(delivered);
    expect(await turns.clearCheckpoint(address, "turn-1")).toBe(true);
    expect(await turns.readCheckpoint(address)).toBeUndefined();
    await turns.writeCheckpoint(address, checkpoint("turn-2", 0));
    expect(await turns.clearCheckpoint(address)).toBe(true);
    expect(await turns.clearCheckpoint(address)).toBe(false);
  });

  it("reads a damaged checkpoint as none, with a warning", async () => {
    const warnings: string[] = [];
    const { turns, keys } = createStore(db.redis, {
      prefix: db.prefix,
      logger: { warn: (message) => warnings.push(message) },
    });
    const address = newAddress();
    const key = keys.conversation(address).checkpoint;
    for (const damaged of [
      "{not json",
      '{"v":1,"turnId":"t"}',
      "[]",
      '{"v":2,"turnId":"t","step":0}',
    ]) {
      await db.redis.set(key, damaged);
      expect(await turns.readCheckpoint(address)).toBeUndefined();
    }
    await db.redis.del(key);
    await db.redis.hset(key, { v: "1" });
    expect(await turns.readCheckpoint(address)).toBeUndefined();
    expect(warnings).toHaveLength(5);
    // A damaged checkpoint also refuses a guarded write rather than crashing the script.
    await db.redis.del(key);
    await db.redis.set(key, "{not json");
    expect(await turns.commitStep(address, stepMessages(1), checkpoint("t", 1))).toBe(false);
  });

  it("refuses to commit step 0, which a turn starts with writeCheckpoint", async () => {
    const { turns } = createStore(db.redis, { prefix: db.prefix });
    await expect(turns.commitStep(newAddress(), [], checkpoint("t", 0))).rejects.toThrow(
      StoreInputError,
    );
  });
});

describe("beginning a turn", () => {
  it("stores the person's messages and the first checkpoint together, and swaps the contract hash", async () => {
    const { turns, history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    const hello: ChatMessage = { role: "user", content: "hello", name: "ada" };
    expect(
      await turns.beginTurn(address, [hello], checkpoint("t1", 1, { contractHash: "aaa" })),
    ).toEqual({
      began: true,
      previousContractHash: null,
    });
    expect(await history.load(address)).toEqual([hello]);
    expect((await turns.readCheckpoint(address))?.turnId).toBe("t1");
    await turns.clearCheckpoint(address, "t1");
    expect(
      await turns.beginTurn(address, [hello], checkpoint("t2", 1, { contractHash: "bbb" })),
    ).toEqual({
      began: true,
      previousContractHash: "aaa",
    });
  });

  it("refuses, writing nothing, while another turn's checkpoint is stored", async () => {
    const { turns, history } = createStore(db.redis, { prefix: db.prefix });
    const address = newAddress();
    await turns.beginTurn(address, [{ role: "user", content: "one" }], checkpoint("t1", 1));
    const second = await turns.beginTurn(
      address,
      [{ role: "user", content: "two" }],
      checkpoint("t2", 1),
    );
    expect(second.began).toBe(false);
    expect((await history.load(address)).map((m) => m.role === "user" && m.content)).toEqual([
      "one",
    ]);
    expect((await turns.readCheckpoint(address))?.turnId).toBe("t1");
  });
});
