import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { uniquePrefix } from "../support/redis.ts";
import {
  type CrashWorkers,
  startCrashWorkers,
  toolThenHang,
  typedMessage,
} from "../support/worker-crash.ts";
import { firstPosts } from "../support/workers.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "crash",
};

describe("a worker killed mid-turn", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  const model = toolThenHang("It is time.");

  beforeAll(async () => {
    fake = await startFakeOpenAI({ responder: model.responder });
    crash = await startCrashWorkers(fake, uniquePrefix("crash"));
  }, 60_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
  });

  it("resumes on another worker from its checkpoint and answers exactly once", async () => {
    const { redis, prefix, store } = crash;
    await crash.enqueue(typedMessage(address, "what time is it?"));

    // Wait until the turn is past its tool call and waiting on the model.
    const deadline = Date.now() + 20_000;
    while (model.afterTool() < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(model.afterTool()).toBe(1);
    await crash.killLeaseHolder(address);
    await firstPosts(redis, prefix);
    // A second answer would come from the worker that was killed or a duplicate resume: give it time.
    await new Promise((r) => setTimeout(r, 2_000));
    const posts = await firstPosts(redis, prefix);
    expect(posts.map((p) => p.text)).toEqual(["It is time."]);

    // The model was not asked the first step again, and history holds the call with its result once.
    const firstStep = fake.requests.filter((r) => r.body.messages.at(-1).role === "user");
    expect(firstStep).toHaveLength(1);
    const history = await store.history.load(address);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(history[2]).toMatchObject({ role: "tool", tool_call_id: "call_time" });
    expect(await new Inbox(redis, store.keys).idle(address)).toBe(true);
  }, 60_000);
});
