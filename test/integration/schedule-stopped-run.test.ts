import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { scheduledMessage } from "../../src/queue/schedule-worker.ts";
import type { RecordedRequest } from "../../src/testing/fakes/openai-server.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

/** A schedule into the console's conversation whose ticks are days away: the test queues its run. */
const CONFIG = parseConfig(
  [
    "schedules:",
    "  - id: standup",
    "    target: { platform: console, workspace: local, channel: terminal }",
    "    prompt: Summarise the deploy queue.",
    '    cron: "0 9 1 1 *"',
    "    owner: alice",
  ].join("\n"),
  "switchyard.yaml",
);

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

const userTexts = (request: RecordedRequest): string[] =>
  (request.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => JSON.stringify(m.content));

/**
 * A run its tick queued, and the schedule paused before the run's turn
 * began: as when a tick comes while the turn of the run before it is still
 * being answered into a deleted channel, which pauses the schedule.
 */
async function queuedThenPaused(p: Pipeline): Promise<InboundMessage> {
  const store = p.app.scheduleDesk.store;
  const state = await store.get("standup");
  if (!state) throw new Error("the config's schedule was not made");
  const tick = Date.now();
  const claim = await store.claim("standup", {
    jobId: `repeat:standup:${tick}`,
    coveredRaw: state.coveredRaw,
    covered: tick,
    run: { tick, missed: 0 },
    now: tick,
  });
  expect(claim).toEqual({ kind: "claimed", runs: 1 });
  const run = scheduledMessage(state.schedule, { id: "standup", tick, missed: 0 }, tick);
  await p.app.scheduleDesk.pause("standup", "the bot can no longer post in its target.");
  return run;
}

async function idle(p: Pipeline, address: InboundMessage): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await p.app.queue.idle(address))) {
    if (Date.now() > deadline) throw new Error("the conversation never went idle");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a scheduled run whose schedule was paused after its tick queued it", () => {
  it("does not run when its turn comes, is not counted, and the next message is answered", async () => {
    pipe = await startPipeline({ config: () => CONFIG });
    const run = await queuedThenPaused(pipe);
    const { platform, workspace, channel, conversation } = run;
    await pipe.app.queue.enqueue(run);
    await pipe.app.queue.enqueue(
      pipe.message("is the deploy queue empty?", { platform, workspace, channel, conversation }),
    );
    const [answer] = await pipe.posts(1);
    await idle(pipe, run);
    expect(pipe.fake.requests).toHaveLength(1);
    expect(userTexts(pipe.fake.requests[0] as RecordedRequest)).toEqual([
      JSON.stringify("is the deploy queue empty?"),
    ]);
    expect((await pipe.app.outbox.read("0", 50)).filter((e) => e.kind === "post")).toEqual([
      answer,
    ]);
    const state = await pipe.app.scheduleDesk.store.get("standup");
    expect(state?.paused).toBeDefined();
    expect(state?.runs).toBe(0);
  });

  it("is not taken into the turn of a person's message before it, nor run after it", async () => {
    pipe = await startPipeline({ config: () => CONFIG });
    const run = await queuedThenPaused(pipe);
    const { platform, workspace, channel, conversation } = run;
    const at = { platform, workspace, channel, conversation };
    await pipe.app.queue.enqueue(pipe.message("first question", at));
    await pipe.app.queue.enqueue(run);
    await pipe.app.queue.enqueue(pipe.message("second question", at));
    await pipe.posts(1);
    await idle(pipe, run);
    const asked = pipe.fake.requests.map((r) => userTexts(r));
    expect(asked.flat().join("\n")).not.toContain("Summarise the deploy queue.");
    expect(asked.at(-1)?.at(-1)).toBe(JSON.stringify("second question"));
    const posts = (await pipe.app.outbox.read("0", 50)).filter((e) => e.kind === "post");
    expect(posts).toHaveLength(pipe.fake.requests.length);
    expect((await pipe.app.scheduleDesk.store.get("standup"))?.runs).toBe(0);
  });
});
