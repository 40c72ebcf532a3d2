/**
 * One measured run of each side of the pipeline bench: bare BullMQ, bare
 * BullMQ with the durable writes a turn makes (in one script each side),
 * and Switchyard turns. Each run reports its rate, this process's CPU per
 * message and the Redis commands per message (INFO commandstats, a script's
 * own calls included).
 */
import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { z } from "zod";
import type { ChatMessage } from "../src/core/agent/messages.ts";
import type { Provider, ProviderRequest, ProviderResponse } from "../src/core/agent/provider.ts";
import { ToolRegistry } from "../src/core/tools/registry.ts";
import { type AnyTool, defineTool } from "../src/core/tools/tool.ts";
import { startSwitchyard } from "../src/runtime/app.ts";
import { HistoryStore } from "../src/store/history-store.ts";
import { KeyScheme } from "../src/store/keys.ts";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** What one run varies. */
export interface RunShape {
  readonly conversations: number;
  readonly concurrency: number;
  /** Registered tools (the model calls one of them). */
  readonly tools: number;
  /** Messages already stored in each conversation before its turn. */
  readonly history: number;
}

export interface RunCost {
  /** Messages (jobs or turns) per second of wall time. */
  readonly perSecond: number;
  /** This process's CPU per message, µs. */
  readonly cpuMicros: number;
  /** Redis commands per message, a script's own calls included. */
  readonly commands: number;
}

export interface SwitchyardRun extends RunCost {
  readonly overhead: readonly number[];
}

/** A model that answers at once: one tool call, then the answer. */
export const instantProvider: Provider = {
  async complete(request: ProviderRequest): Promise<ProviderResponse> {
    const last = request.messages.at(-1);
    const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    if (last?.role === "user") {
      return {
        content: null,
        toolCalls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "echo", arguments: '{"text":"hi"}' },
          },
        ],
        finishReason: "tool_calls",
        usage,
      };
    }
    return { content: "done", toolCalls: [], finishReason: "stop", usage };
  },
};

const echo = defineTool({
  id: "echo",
  description: "Echoes its text.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** `echo` and `count - 1` more tools with ordinary schemas. */
export function benchTools(count: number): AnyTool[] {
  const tools: AnyTool[] = [echo];
  for (let i = 1; i < count; i++) {
    tools.push(
      defineTool({
        id: `tool_${String(i).padStart(3, "0")}`,
        description: `Looks up record ${i} in the team's tracker and returns its fields.`,
        parameters: z.object({ id: z.string(), fields: z.array(z.string()).optional() }),
        execute: ({ id }) => id,
      }),
    );
  }
  return tools;
}

/** The sum of Redis's per-command call counts: scripts' inner calls are counted by their command. */
export async function commandCalls(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) total += Number(match[1]);
  return total;
}

/** A run's wall time, CPU and Redis commands around `work`, which returns how many bench-only commands it sent. */
async function measure(messages: number, work: () => Promise<number>): Promise<RunCost> {
  const stats = new Redis(REDIS_URL);
  try {
    const before = await commandCalls(stats);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const own = await work();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    // The INFO before is counted too.
    const commands = (await commandCalls(stats)) - before - own - 1;
    return {
      perSecond: messages / seconds,
      cpuMicros: (used.user + used.system) / messages,
      commands: commands / messages,
    };
  } finally {
    stats.disconnect();
  }
}

/**
 * What a turn makes durable, as one script a side with the keys of one
 * conversation in one slot: on enqueue the dedupe mark and the inbox entry;
 * in the worker the lease, the stored messages, the checkpoint, the answer
 * on the outbox, the inbox trim and the lease let go.
 */
const INGRESS_WRITES = `
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', 86400) then redis.call('RPUSH', KEYS[2], ARGV[1]) end
return 1`;
const TURN_WRITES = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', 30000)
redis.call('RPUSH', KEYS[2], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
redis.call('HSET', KEYS[3], 'turn', ARGV[1], 'step', '2', 'inbox', '1')
redis.call('XADD', KEYS[4], 'MAXLEN', '~', 10000, '*', 'text', 'done')
redis.call('LTRIM', KEYS[5], 1, -1)
redis.call('DEL', KEYS[3], KEYS[1])
return 1`;

/** One side of the bench, started: sends messages and resolves once they are done. */
export interface Side {
  /** Sends messages `from` to `from + count - 1` at once; resolves when all are done, with the bench-only commands it sent. */
  sendAll(from: number, count: number): Promise<number>;
  close(): Promise<void>;
}

/** Bare BullMQ (add -> process -> complete, one job per message), optionally with a turn's durable writes. */
export async function startBare(
  prefix: string,
  shape: RunShape,
  durable: boolean,
  redisUrl = REDIS_URL,
): Promise<Side> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const writes = new Redis(redisUrl);
  writes.defineCommand("ingressWrites", { numberOfKeys: 2, lua: INGRESS_WRITES });
  writes.defineCommand("turnWrites", { numberOfKeys: 5, lua: TURN_WRITES });
  const scripted = writes as Redis & {
    ingressWrites(...args: string[]): Promise<number>;
    turnWrites(...args: string[]): Promise<number>;
  };
  const keys = (i: number) => {
    const tag = `${prefix}:{c${i}}`;
    return [
      `${tag}:seen`,
      `${tag}:inbox`,
      `${tag}:lease`,
      `${tag}:history`,
      `${tag}:checkpoint`,
      `${tag}:outbox`,
    ] as const;
  };
  const queue = new Queue("bare", { connection, prefix });
  const waiting = new Map<number, () => void>();
  const worker = new Worker(
    "bare",
    async (job) => {
      const i = job.data.i as number;
      if (durable) {
        const [, inbox, lease, history, checkpoint, outbox] = keys(i);
        await scripted.turnWrites(
          lease,
          history,
          checkpoint,
          outbox,
          inbox,
          job.id ?? "",
          '{"role":"user","content":"hello"}',
          '{"role":"assistant","content":null,"tool_calls":[]}',
          '{"role":"tool","tool_call_id":"call_1","content":"hi"}',
          '{"role":"assistant","content":"done"}',
        );
      }
      return "ok";
    },
    { connection: workerConnection, prefix, concurrency: shape.concurrency },
  );
  worker.on("completed", (job) => waiting.get(job.data.i as number)?.());
  await worker.waitUntilReady();
  const send = async (i: number) => {
    const done = new Promise<void>((resolve) => waiting.set(i, resolve));
    if (durable) {
      const [seen, inbox] = keys(i);
      await scripted.ingressWrites(seen, inbox, '{"text":"hello"}');
    }
    await queue.add("job", { i }, { removeOnComplete: true, jobId: `b-${i}` });
    await done;
    waiting.delete(i);
  };
  return {
    sendAll: async (from, count) => {
      await Promise.all(Array.from({ length: count }, (_, k) => send(from + k)));
      return 0;
    },
    close: async () => {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
      workerConnection.disconnect();
      writes.disconnect();
    },
  };
}

/** A measured run of a side: every conversation's message at once. */
export async function measuredRun(side: Side, shape: RunShape): Promise<RunCost> {
  try {
    return await measure(shape.conversations, () => side.sendAll(0, shape.conversations));
  } finally {
    await side.close();
  }
}

/** The address of conversation `i` of a run. */
const addressOf = (i: number) => ({
  platform: "console",
  workspace: "bench",
  channel: "c",
  conversation: `conv${i}`,
});

/** Stores `count` earlier messages (questions and answers) in each conversation. */
async function seedHistory(prefix: string, shape: RunShape): Promise<void> {
  if (shape.history === 0) return;
  const redis = new Redis(REDIS_URL);
  const history = new HistoryStore(redis, new KeyScheme(prefix));
  // Each conversation's own words, as in life: no two conversations store the same entry.
  const messages = (i: number): ChatMessage[] =>
    Array.from({ length: shape.history }, (_, n) =>
      n % 2 === 0
        ? { role: "user", content: `Question ${n} in conversation ${i}: what does the deploy do?` }
        : {
            role: "assistant",
            content: `Answer ${n} in conversation ${i}: it waits for the window.`,
          },
    );
  try {
    for (let i = 0; i < shape.conversations; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, shape.conversations - i) }, (_, j) =>
          history.append(addressOf(i + j), messages(i + j)),
        ),
      );
    }
  } finally {
    redis.disconnect();
  }
}

/** A Switchyard process's queue and worker; a message is done when its answer is on the outbox. */
export async function startSwitchyardSide(
  prefix: string,
  shape: RunShape,
  redisUrl = REDIS_URL,
): Promise<Side & { readonly overhead: readonly number[] }> {
  const overhead: number[] = [];
  // Turns that ended, as the worker reports them: waited on in-process, so the measured
  // process spends no CPU polling Redis for answers (bare BullMQ's side waits on an event too).
  let ended = 0;
  let waiting: { count: number; resolve: () => void } | undefined;
  await seedHistory(prefix, shape);
  const app = await startSwitchyard({
    redisUrl,
    prefix,
    registry: new ToolRegistry(benchTools(shape.tools)),
    provider: instantProvider,
    concurrency: shape.concurrency,
    // The bench times turns, not the quiet window people get between quick lines.
    queueBehaviour: () => ({ mode: "collect", debounceMs: 0 }),
    observe: {
      turn: ({ result, ms }) => {
        if (result === undefined) return; // a failed run; its retry reports the turn
        overhead.push(ms - result.modelMs - result.toolMs);
        ended++;
        if (waiting && ended >= waiting.count) waiting.resolve();
      },
    },
  });
  await app.worker?.worker.waitUntilReady();
  // Polled directly, so a counting proxy in front of the process sees only the process.
  const poll = new Redis(REDIS_URL);
  let answered = 0;
  return {
    overhead,
    sendAll: async (from, count) => {
      await Promise.all(
        Array.from({ length: count }, (_, k) =>
          app.queue.enqueue({
            ...addressOf(from + k),
            user: "u",
            text: "hello",
            attachments: [],
            eventId: randomUUID(),
            time: Date.now(),
          }),
        ),
      );
      answered += count;
      const target = answered;
      if (ended < target) {
        await new Promise<void>((resolve) => {
          waiting = { count: target, resolve };
        });
      }
      // Then every answer is on the outbox (the turn reports after its delivery).
      let polls = 0;
      for (;;) {
        polls++;
        if ((await poll.xlen(app.outbox.stream)) >= answered) return polls;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
    close: async () => {
      poll.disconnect();
      await app.close();
    },
  };
}

/**
 * Switchyard turns, one per conversation. `laterTurn`: each conversation has
 * had a turn on this worker before the measured one, as a conversation's
 * every turn but its first has.
 */
export async function switchyardRun(
  prefix: string,
  shape: RunShape,
  laterTurn = false,
): Promise<SwitchyardRun> {
  const side = await startSwitchyardSide(prefix, shape);
  if (laterTurn) await side.sendAll(0, shape.conversations);
  const cost = await measuredRun(side, shape);
  return { ...cost, overhead: side.overhead };
}

/** Deletes every key under a run's prefix. */
export async function cleanup(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
  redis.disconnect();
}
