import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_REMINDERS } from "../../src/core/config/index.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { reminderQueue, reminderTools } from "../../src/tools/reminders/index.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
let closeQueue: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeQueue?.();
  await pipe?.close();
  pipe = closeQueue = undefined;
});

describe("a reminder set in a conversation", () => {
  it("is posted back into it by the worker process when it comes due, once", async () => {
    const registry = new ToolRegistry();
    pipe = await startPipeline({ registry, runtime: { mode: "full" } });
    const queue = reminderQueue(pipe.app.redis, pipe.prefix);
    closeQueue = () => queue.close();
    for (const tool of reminderTools({
      queue,
      redis: pipe.app.redis,
      prefix: pipe.prefix,
      defaults: DEFAULT_REMINDERS,
    })) {
      registry.register(tool);
    }
    pipe.fake.script(
      {
        toolCalls: [{ id: "c1", name: "set_reminder", arguments: { text: "stand up", in: "1s" } }],
      },
      { content: "I will remind you in a second." },
    );
    await pipe.app.queue.enqueue(pipe.message("remind me to stand up in a second"));
    const posts = await pipe.posts(2, 20_000);
    expect(posts.map((p) => p.text)).toEqual([
      "I will remind you in a second.",
      "⏰ Reminder for alice: stand up",
    ]);
    expect(posts[1]?.conversation).toBe(posts[0]?.conversation);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await pipe.posts(2)).toHaveLength(2);
  });
});
