import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { uniquePrefix } from "../support/redis.ts";
import {
  type CrashWorkers,
  startCrashWorkers,
  typedMessage,
  userTexts,
} from "../support/worker-crash.ts";
import { firstPosts } from "../support/workers.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "steer-crash",
};

describe("a worker killed right after it steered a message into its turn", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;

  // Which requests the fake has seen, so the test waits on the request that matters, not on a clock.
  let afterTool: RecordedRequest[] = [];
  let releaseFirstStep: () => void = () => {};

  beforeAll(async () => {
    // Step 1 calls a tool, but its answer is held until the test has queued the second
    // message, so the message is surely waiting at the step boundary however slow the
    // machine. The request after the tool result (which carries the steered message) hangs,
    // and the worker is killed while it waits; the resumed turn's request gets the answer.
    const firstStepHeld = new Promise<void>((resolve) => {
      releaseFirstStep = resolve;
    });
    fake = await startFakeOpenAI({
      responder: async (request) => {
        const last = request.body.messages.at(-1);
        if (last.role === "user" && userTexts(request).length === 1) {
          await firstStepHeld;
          return {
            toolCalls: [{ id: "call_t", name: "current_time", arguments: { timeZone: "UTC" } }],
          };
        }
        afterTool = [...afterTool, request];
        return afterTool.length === 1
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
    const inbox = new Inbox(redis, store.keys);
    await crash.enqueue(typedMessage(address, "what time is it?", "e1"));
    await until(() => (fake.requests.length >= 1 ? true : undefined), 30_000);
    await crash.enqueue(typedMessage(address, "and use staging, please", "e2"));
    releaseFirstStep();

    // The worker steered it in when its request after the tool result reached the model
    // (and the message is in history); kill it while it waits for the answer. Killing on
    // "in history" alone raced the request: a worker killed before sending it left the
    // hanging reply to the survivor.
    const steeredRequest = await until(() => afterTool[0], 30_000);
    expect(userTexts(steeredRequest)).toEqual(["what time is it?", "and use staging, please"]);
    const history = async () => store.history.load(address);
    expect((await history()).some((m) => m.content === "and use staging, please")).toBe(true);
    await crash.killLeaseHolder(address);

    // The survivor resumes and ends the turn: the conversation is at rest with its answer
    // posted, and nothing can post after that (the killed worker is gone).
    const deadline = Date.now() + 45_000;
    while (!((await firstPosts(redis, prefix, 0)).length > 0 && (await inbox.idle(address)))) {
      if (Date.now() > deadline) throw new Error("the survivor did not finish the turn in 45 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    const posts = await firstPosts(redis, prefix, 0);
    expect(posts.map((p) => p.text)).toEqual(["Noted: staging, at that time."]);
    expect(afterTool).toHaveLength(2);
    const resumed = fake.requests.at(-1) as RecordedRequest;
    expect(userTexts(resumed)).toEqual(["what time is it?", "and use staging, please"]);
    const stored = await history();
    expect(stored.filter((m) => m.content === "and use staging, please")).toHaveLength(1);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
  }, 90_000);
});
