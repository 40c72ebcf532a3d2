import { afterEach, describe, expect, it } from "vitest";
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
});
