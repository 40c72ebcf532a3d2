import { afterAll, describe, expect, it } from "vitest";
import { type ConversationAddress, conversationKey } from "../../src/core/conversation.ts";
import { RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { startWorkerProcess, type WorkerProcess } from "../support/workers.ts";

const at = (conversation: string): ConversationAddress => ({
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation,
});

describe("SIGTERM", () => {
  const prefix = uniquePrefix("term");
  const redis = connectRedis({ maxRetriesPerRequest: null });
  const workers: WorkerProcess[] = [];

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop("SIGKILL")));
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("finishes the turn in progress, takes no new work, and exits cleanly", async () => {
    const fake = await startFakeOpenAI({
      responder: (request) => {
        const text = request.body.messages.at(-1).content as string;
        return text === "slow"
          ? { content: "finished slow", delayMs: 1_500 }
          : { content: `answered ${text}` };
      },
    });
    const env = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
    };
    const first = await startWorkerProcess(env);
    workers.push(first);
    const queue = new ConversationQueue(new Inbox(redis, new KeyScheme(prefix)), { prefix });
    const message = (conversation: string, text: string) => ({
      ...at(conversation),
      user: "u",
      text,
      attachments: [],
      eventId: `${conversation}-${text}`,
      time: Date.now(),
    });
    await queue.enqueue(message("a", "slow"));
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 20));

    const exited = first.stop("SIGTERM");
    // "During shutdown" is once the worker says it is stopping, not 200 ms after the signal
    // (a loaded machine can take longer to even run the handler, and it would take the message).
    const stopBy = Date.now() + 15_000;
    while (!first.logs().includes("stopping: finishing the turns in progress")) {
      if (Date.now() > stopBy)
        throw new Error(`the worker never said it was stopping:\n${first.logs()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await queue.enqueue(message("b", "later"));
    expect(await exited).toBe(0);

    const outbox = new RedisOutbox(redis, prefix, conversationKey);
    const posts = () => outbox.read("0", 10).then((e) => e.filter((p) => p.kind === "post"));
    expect((await posts()).map((p) => [p.conversation, p.text])).toEqual([
      [conversationKey(at("a")), "finished slow"],
    ]);

    // The message that arrived during shutdown waits for the next worker.
    workers.push(await startWorkerProcess(env));
    const deadline = Date.now() + 20_000;
    while ((await posts()).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect((await posts()).map((p) => p.text)).toEqual(["finished slow", "answered later"]);
    await queue.close();
    await fake.close();
  }, 60_000);
});
