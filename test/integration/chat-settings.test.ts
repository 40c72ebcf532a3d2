import { afterEach, describe, expect, it } from "vitest";
import { dayPeriod, monthPeriod } from "../../src/core/budget/usage.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

const userTexts = (request: { body: { messages: { role: string; content: string }[] } }) =>
  request.body.messages.filter((m) => m.role === "user").map((m) => m.content);

describe("chat settings the worker reads", () => {
  it("takes a queue mode chosen in chat over the config's: followup makes two people's messages two turns", async () => {
    const config = parseConfig("queue:\n  mode: collect\n  debounce_ms: 300\n", "q.yaml");
    // The app's own queue behaviour: the chat's choice, else the config.
    pipe = await startPipeline({ config: () => config, queueBehaviour: undefined });
    const address = pipe.message("");
    await pipe.app.store.settings.write("channel", address, "queue", "followup");
    pipe.fake.script({ content: "one" }, { content: "two" });
    await pipe.app.queue.enqueue(pipe.message("first", { user: "alice" }));
    await pipe.app.queue.enqueue(pipe.message("second", { user: "bob" }));
    expect((await pipe.posts(2)).map((p) => p.text)).toEqual(["one", "two"]);
    expect(pipe.fake.requests.map((r) => userTexts(r).at(-1))).toEqual(["first", "second"]);
  });

  it("counts a turn's usage once, per conversation, person and workspace, today and this month", async () => {
    pipe = await startPipeline();
    const address = pipe.message("");
    const usage = pipe.app.store.usage;
    const now = Date.UTC(2026, 11, 1, 23, 59);
    const reported = { promptTokens: 100, cachedTokens: 40, completionTokens: 7 };
    const subject = { address, user: "console:alice" };
    expect(await usage.record(subject, "turn-1", reported, 12, now)).toBe(true);
    // A worker that takes the turn over and finishes it again does not count it twice.
    expect(await usage.record(subject, "turn-1", reported, 12, now)).toBe(false);
    expect(await usage.record(subject, "turn-2", reported, 12, now + 120_000)).toBe(true);
    const counted = { prompt: 100, cached: 40, completion: 7, turns: 1, costMicros: 12 };
    for (const owner of [
      { kind: "conversation", address },
      { kind: "workspace", ref: address },
      { kind: "user", user: "console:alice" },
    ] as const) {
      expect(await usage.read(owner, dayPeriod(now))).toEqual(counted);
      // The second turn was the next UTC day, the same month.
      expect(await usage.read(owner, dayPeriod(now + 120_000))).toEqual(counted);
      expect(await usage.read(owner, monthPeriod(now))).toEqual({
        prompt: 200,
        cached: 80,
        completion: 14,
        turns: 2,
        costMicros: 24,
      });
      const ttl = await pipe.app.redis.ttl(pipe.app.store.keys.usage(owner, dayPeriod(now)));
      expect(ttl).toBeGreaterThan(0);
    }
  });

  it("counts each turn a worker runs once, for the conversation as the turn ends, then the person and the workspace", async () => {
    pipe = await startPipeline();
    const address = pipe.message("");
    pipe.fake.script(
      { content: "one", usage: { prompt_tokens: 100, completion_tokens: 7 } },
      { content: "two", usage: { prompt_tokens: 50, completion_tokens: 3 } },
    );
    await pipe.app.queue.enqueue(pipe.message("first"));
    await pipe.posts(1);
    await pipe.app.queue.enqueue(pipe.message("second"));
    await pipe.posts(2);
    const usage = pipe.app.store.usage;
    const owners = [
      { kind: "conversation", address },
      { kind: "workspace", ref: address },
      { kind: "user", user: "console:alice" },
    ] as const;
    const today = dayPeriod(Date.now());
    const counted = { prompt: 150, cached: 0, completion: 10, turns: 2, costMicros: 0 };
    // The answer is posted before the turn ends; the counting follows within moments.
    for (let i = 0; i < 50; i++) {
      const all = await Promise.all(owners.map((owner) => usage.read(owner, today)));
      if (all.every((c) => c.turns >= 2)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const owner of owners) expect(await usage.read(owner, today)).toEqual(counted);
  });

  it("counts nothing for a turn whose worker lost the lease before it could end it", async () => {
    pipe = await startPipeline({ worker: false });
    const address = pipe.message("");
    const inbox = new Inbox(pipe.app.redis, pipe.app.store.keys);
    const usage = pipe.app.store.usage;
    const now = Date.now();
    const counting = usage.conversationCounting(
      address,
      { promptTokens: 10, cachedTokens: 0, completionTokens: 1 },
      0,
      now,
    );
    await pipe.app.redis.set(inbox.keysOf(address).lease, "another-worker");
    // The turn in progress, as the turn's begin stored it.
    await pipe.app.redis.set(inbox.keysOf(address).checkpoint, "{}");
    expect((await inbox.finish(address, "this-worker", 0, counting)).left).toBe(-1);
    const owner = { kind: "conversation", address } as const;
    expect((await usage.read(owner, dayPeriod(now))).turns).toBe(0);
    expect((await inbox.finish(address, "another-worker", 0, counting)).left).toBe(0);
    expect(await usage.read(owner, dayPeriod(now))).toMatchObject({ turns: 1, prompt: 10 });
  });
});
