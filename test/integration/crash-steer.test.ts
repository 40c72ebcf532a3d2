import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/agent/inbound.ts";
import { Inbox } from "../../src/workers/inbox.ts";
import { type FakeOpenAI, type RecordedRequest, startFakeOpenAI } from "../fakes/openai-server.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers, typedMessage } from "../support/worker-crash.ts";
import { firstPosts } from "../support/workers.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "steer-crash",
};

const userTexts = (request: RecordedRequest) =>
  (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === "user")
    .map((m) => m.content);

describe("a worker killed right after it steered a message into its turn", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;

  beforeAll(async () => {
    // Step 1 takes its time and calls a tool; the request after the tool result (which
    // carries the steered message) hangs, and the worker is killed while it waits.
    let afterTool = 0;
    fake = await startFakeOpenAI({
      responder: (request) => {
        const last = request.body.messages.at(-1);
        if (last.role === "user" && userTexts(request).length === 1) {
          return {
            delayMs: 1_500,
            toolCalls: [{ id: "call_t", name: "current_time", arguments: { timeZone: "UTC" } }],
          };
        }
        afterTool++;
        return afterTool === 1
          ? { content: "too late", delayMs: 60_000 }
          : { content: "Noted: staging, at that time." };
      },
    });
    crash = await startCrashWorkers(fake, uniquePrefix("steercrash"), {
      SWITCHYARD_QUEUE_MODE: "steer",
    });
  }, 120_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
  });

  it("resumes with the steered message exactly once, and the person gets one answer", async () => {
    const { redis, prefix, store } = crash;
    await crash.enqueue(typedMessage(address, "what time is it?", "e1"));
    const deadline = Date.now() + 20_000;
    while (fake.requests.length < 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await crash.enqueue(typedMessage(address, "and use staging, please", "e2"));

    // Wait until the worker steered it in (it is in history), then kill the worker.
    const steered = async () =>
      (await store.history.load(address)).some((m) => m.content === "and use staging, please");
    while (!(await steered()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await steered()).toBe(true);
    await crash.killLeaseHolder(address);

    await firstPosts(redis, prefix);
    await new Promise((r) => setTimeout(r, 2_000));
    const posts = await firstPosts(redis, prefix);
    expect(posts.map((p) => p.text)).toEqual(["Noted: staging, at that time."]);
    const resumed = fake.requests.at(-1) as RecordedRequest;
    expect(userTexts(resumed)).toEqual(["what time is it?", "and use staging, please"]);
    const history = await store.history.load(address);
    expect(history.filter((m) => m.content === "and use staging, please")).toHaveLength(1);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(await new Inbox(redis, store.keys).idle(address)).toBe(true);
  }, 90_000);
});
