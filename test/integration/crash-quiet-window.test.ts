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
  conversation: "window-crash",
};

describe("a worker killed right after it folded a line into its turn inside the quiet window", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  let folded: RecordedRequest[] = [];

  beforeAll(async () => {
    // The lone line's request never answers (the fold cancels it); the request that starts
    // over with both lines hangs, and the worker is killed while it waits; the resumed
    // turn's request gets the answer.
    fake = await startFakeOpenAI({
      responder: async (request) => {
        if (userTexts(request).length === 1)
          return { content: "only the first", neverAnswer: true };
        folded = [...folded, request];
        return folded.length === 1
          ? { content: "too late", delayMs: 60_000 }
          : { content: "One answer for both lines." };
      },
    });
    crash = await startCrashWorkers(fake, uniquePrefix("windowcrash"), {
      SWITCHYARD_QUEUE_MODE: "collect",
      // Wide next to the time the test takes to send the second line, however slow the machine.
      SWITCHYARD_QUEUE_DEBOUNCE_MS: "3000",
    });
  }, 120_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
  });

  it("resumes with the folded line exactly once, and the person gets one answer", async () => {
    const { redis, prefix, store } = crash;
    const inbox = new Inbox(redis, store.keys);
    await crash.enqueue(typedMessage(address, "the deploy", "w1"));
    // The lone line reached the model inside its window; the second line comes meanwhile.
    await until(() => (fake.requests.length >= 1 ? true : undefined), 30_000);
    await crash.enqueue(typedMessage(address, "did it finish?", "w2"));

    const startedOver = await until(() => folded[0], 30_000);
    expect(userTexts(startedOver)).toEqual(["the deploy", "did it finish?"]);
    const history = async () => store.history.load(address);
    expect((await history()).some((m) => m.content === "did it finish?")).toBe(true);
    await crash.killLeaseHolder(address);

    const deadline = Date.now() + 45_000;
    while (!((await firstPosts(redis, prefix, 0)).length > 0 && (await inbox.idle(address)))) {
      if (Date.now() > deadline) throw new Error("the survivor did not finish the turn in 45 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    const posts = await firstPosts(redis, prefix, 0);
    expect(posts.map((p) => p.text)).toEqual(["One answer for both lines."]);
    expect(folded).toHaveLength(2);
    expect(userTexts(fake.requests.at(-1) as RecordedRequest)).toEqual([
      "the deploy",
      "did it finish?",
    ]);
    const stored = await history();
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["user", "the deploy"],
      ["user", "did it finish?"],
      ["assistant", "One answer for both lines."],
    ]);
  }, 90_000);
});
