/**
 * The setup of the tests that kill a worker process mid-turn: two (or more)
 * real workers on one prefix, tuned so the survivor takes the turn over in
 * seconds, and a way to queue a message and kill whichever worker runs it.
 *
 * @example
 * const model = toolThenHang("It is time.");
 * fake = await startFakeOpenAI({ responder: model.responder });
 * crash = await startCrashWorkers(fake, uniquePrefix("crash"));
 * await crash.enqueue(typedMessage(address, "what time is it?"));
 * await until(() => (model.afterTool() >= 1 ? true : undefined));
 * await crash.killLeaseHolder(address);
 * // ... the survivor answers; then:
 * await crash.close();
 */
import type { Redis } from "ioredis";
import type { ConversationAddress, InboundMessage } from "../../src/core/conversation.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore, type Store } from "../../src/store/index.ts";
import type {
  FakeOpenAI,
  RecordedRequest,
  Responder,
} from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder } from "./redis.ts";
import { killLeaseHolder, startWorkerProcess, type WorkerProcess } from "./workers.ts";

/** A lease, lock and stall check short enough that a killed worker's turn moves on within seconds. */
export const QUICK_TAKEOVER: Readonly<Record<string, string>> = {
  SWITCHYARD_LEASE_MS: "1500",
  SWITCHYARD_LOCK_MS: "1500",
  SWITCHYARD_STALLED_INTERVAL_MS: "500",
};

export interface CrashWorkers {
  readonly redis: Redis;
  readonly prefix: string;
  readonly store: Store;
  readonly workers: WorkerProcess[];
  /** What every worker was started with. */
  readonly env: Record<string, string>;
  /** Queues `message` as ingress would. */
  enqueue(message: InboundMessage): Promise<void>;
  /** Kills (SIGKILL) the worker in the middle of `address`'s turn. */
  killLeaseHolder(address: ConversationAddress): Promise<WorkerProcess>;
  /** Stops the workers (with `signal`), deletes the prefix's keys and disconnects. */
  close(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `count` worker processes against the fake model on `prefix`, with
 * {@link QUICK_TAKEOVER}; `env` adds to (or overrides) what they get.
 */
export async function startCrashWorkers(
  model: FakeOpenAI,
  prefix: string,
  env: Record<string, string> = {},
  count = 2,
): Promise<CrashWorkers> {
  const redis = connectRedis({ maxRetriesPerRequest: null });
  const store = createStore(redis, { prefix });
  const workerEnv = {
    SWITCHYARD_PREFIX: prefix,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "test",
    SWITCHYARD_MODEL: "fake-model",
    ...QUICK_TAKEOVER,
    ...env,
  };
  const workers = await Promise.all(
    Array.from({ length: count }, () => startWorkerProcess(workerEnv)),
  );
  return {
    redis,
    prefix,
    store,
    workers,
    env: workerEnv,
    async enqueue(message) {
      const queue = new ConversationQueue(new Inbox(redis, store.keys), { prefix });
      await queue.enqueue(message);
      await queue.close();
    },
    killLeaseHolder: (address) =>
      killLeaseHolder(redis, `${store.keys.conversationTag(address)}:lease`, workers),
    async close(signal) {
      await Promise.all(workers.map((w) => w.stop(signal)));
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    },
  };
}

/** A message typed at `address` by user `u`, as the console sends it. */
export function typedMessage(
  address: ConversationAddress,
  text: string,
  eventId = "e1",
): InboundMessage {
  return { ...address, user: "u", text, attachments: [], eventId, time: Date.now() };
}

/**
 * A model whose first step calls `current_time`; the first request after the
 * tool result hangs (its worker is killed while it waits), and a resumed
 * turn's request gets `answer`. `afterTool` counts the requests after the
 * tool result.
 */
export function toolThenHang(answer: string): { responder: Responder; afterTool: () => number } {
  let afterTool = 0;
  const responder = (request: RecordedRequest) => {
    if (request.body.messages.at(-1).role === "user") {
      return {
        toolCalls: [{ id: "call_time", name: "current_time", arguments: { timeZone: "UTC" } }],
      };
    }
    afterTool++;
    return afterTool === 1 ? { content: "too late", delayMs: 60_000 } : { content: answer };
  };
  return { responder, afterTool: () => afterTool };
}

/** The user messages' texts of a request the fake model recorded, in order. */
export const userTexts = (request: RecordedRequest): string[] =>
  (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === "user")
    .map((m) => m.content);
