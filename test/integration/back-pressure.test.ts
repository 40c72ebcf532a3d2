import { afterEach, describe, expect, it } from "vitest";
import type { LoadSample } from "../../src/queue/back-pressure.ts";
import type { SwitchyardOptions } from "../../src/runtime/app.ts";
import type { ScriptedReply } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

/**
 * Two people write in two conversations; the first answer takes a while.
 * Returns how many answers were out when the model was asked the second
 * question.
 */
async function twoConversations(options: Partial<SwitchyardOptions>, strained: boolean) {
  pipe = await startPipeline(options);
  const p = pipe;
  if (strained) await until(() => p.app.worker?.strain);
  let postedWhenAsked: number | undefined;
  p.fake.script(
    { content: "the first answer", delayMs: 1_500 },
    async (): Promise<ScriptedReply> => {
      const out = await p.app.outbox.read("0", 50);
      postedWhenAsked = out.filter((e) => e.kind === "post").length;
      return { content: "the second answer" };
    },
  );
  await p.app.queue.enqueue(p.message("one", { conversation: "first" }));
  await p.requests(1);
  await p.app.queue.enqueue(p.message("two", { conversation: "second" }));
  const posts = await p.posts(2);
  expect(posts.map((e) => e.text).sort()).toEqual(["the first answer", "the second answer"]);
  return postedWhenAsked;
}

describe("a worker under pressure", () => {
  it("runs many conversations at once by default: the second is asked while the first still streams", async () => {
    expect(await twoConversations({}, false)).toBe(0);
  });

  it("takes no new turn while strained: the second conversation waits in Redis for the first to end, then is answered", async () => {
    // Any heap is over 1 MB: the worker is strained from its first look.
    expect(await twoConversations({ maxHeapMb: 1 }, true)).toBe(1);
  });

  it.each([
    ["before the long turn starts", true],
    ["while the long turn runs", false],
  ])(
    "strained %s: a new message waits in Redis, and is answered as soon as the worker recovers, while the long turn still runs",
    async (_when, strainedFirst) => {
      const load = forcedLoad(strainedFirst);
      pipe = await startPipeline({ loadSample: load.sample });
      const p = pipe;
      const long = longTurn(p);
      try {
        if (strainedFirst) await until(() => p.app.worker?.strain);
        await p.app.queue.enqueue(p.message("think it all through", { conversation: "long" }));
        await p.requests(1);
        if (!strainedFirst) {
          load.strained = true;
          await until(() => p.app.worker?.strain);
        }
        await p.app.queue.enqueue(p.message("a quick one", { conversation: "quick" }));
        await load.looksMore(2);
        expect(await p.app.queue.waiting()).toBe(1);
        expect(p.fake.requests).toHaveLength(1);

        load.strained = false;
        await until(() => (p.app.worker?.strain === undefined ? true : undefined));
        // Recovered: taken at once, not when the long turn ends (it has not).
        const posts = await p.posts(1, 5_000);
        expect(posts.map((e) => e.text)).toEqual(["the quick answer"]);
      } finally {
        long.end();
      }
      const posts = await p.posts(2);
      expect(posts.map((e) => e.text)).toEqual(["the quick answer", "the long answer"]);
    },
  );

  it("closes while strained: the long turn finishes, and the message that came meanwhile stays in Redis for another worker", async () => {
    const load = forcedLoad(false);
    pipe = await startPipeline({ loadSample: load.sample });
    const p = pipe;
    const long = longTurn(p);
    try {
      await p.app.queue.enqueue(p.message("think it all through", { conversation: "long" }));
      await p.requests(1);
      load.strained = true;
      await until(() => p.app.worker?.strain);
      await p.app.queue.enqueue(p.message("a quick one", { conversation: "quick" }));
      await load.looksMore(2);
    } finally {
      long.end();
    }
    await p.app.worker?.close();
    const posts = (await p.app.outbox.read("0", 50)).filter((e) => e.kind === "post");
    expect(posts.map((e) => e.text)).toEqual(["the long answer"]);
    expect(await p.app.queue.waiting()).toBe(1);
    expect(p.fake.requests).toHaveLength(1);
  });

  it("a turn that ends while the worker is strained and runs another takes no new message with it; the last one to end does", async () => {
    const load = forcedLoad(false);
    pipe = await startPipeline({ loadSample: load.sample });
    const p = pipe;
    const [first, second] = longTurns(p, 2);
    try {
      await p.app.queue.enqueue(p.message("think it all through", { conversation: "first" }));
      await p.requests(1);
      await p.app.queue.enqueue(p.message("and this too", { conversation: "second" }));
      await p.requests(2);
      load.strained = true;
      await until(() => p.app.worker?.strain);
      await p.app.queue.enqueue(p.message("a quick one", { conversation: "quick" }));
      await load.looksMore(1);

      // BullMQ's job end can take the next job in the same call ("fetch next"): not now.
      first?.end();
      expect((await p.posts(1)).map((e) => e.text)).toEqual(["the long answer 1"]);
      await load.looksMore(2);
      expect(await p.app.queue.waiting()).toBe(1);
      expect(p.fake.requests).toHaveLength(2);

      // Still strained, but it holds no other turn: one at a time, so nobody waits for good.
      second?.end();
      const posts = await p.posts(3);
      expect(posts.map((e) => e.text)).toEqual([
        "the long answer 1",
        "the long answer 2",
        "the quick answer",
      ]);
      expect(p.app.worker?.strain).toBeDefined();
    } finally {
      first?.end();
      second?.end();
    }
  });
});

/**
 * The worker's load as the test sets it: strained or not, seen at the
 * worker's next look (once a second).
 */
function forcedLoad(strained: boolean) {
  let looks = 0;
  const load = {
    strained,
    sample: (): LoadSample => {
      looks += 1;
      return {
        eventLoopDelayP99Ms: load.strained ? 1_000 : 0,
        heapUsedMb: 1,
        heapLimitMb: 4_096,
      };
    },
    /** Resolves after `count` more looks: time enough for a worker that takes jobs to take one. */
    looksMore: async (count: number) => {
      const after = looks + count;
      await until(() => (looks >= after ? true : undefined));
    },
  };
  return load;
}

/** The model's first answer takes until `end()`: a long agentic turn. */
function longTurn(p: Pipeline) {
  const [long] = longTurns(p, 1);
  if (long === undefined) throw new Error("no long turn");
  return long;
}

/**
 * The model's first `count` answers ("the long answer 1", ...) each take
 * until its `end()`: long agentic turns. The next is "the quick answer".
 */
function longTurns(p: Pipeline, count: number) {
  const turns = Array.from({ length: count }, (_, i) => {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const reply = async (): Promise<ScriptedReply> => {
      await ended;
      return { content: count === 1 ? "the long answer" : `the long answer ${i + 1}` };
    };
    return { end, reply };
  });
  p.fake.script(...turns.map((turn) => turn.reply), { content: "the quick answer" });
  return turns.map(({ end }) => ({ end }));
}
