import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { z } from "zod";
import { startSwitchyard } from "../src/app.ts";
import type { Provider, ProviderRequest, ProviderResponse } from "../src/core/agent/provider.ts";
import { ToolRegistry } from "../src/core/tools/registry.ts";
import { defineTool } from "../src/core/tools/tool.ts";

const CONVERSATIONS = 1_000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TURNS_TARGET = 0.5;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A model that answers at once: one tool call, then the answer. */
const instantProvider: Provider = {
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

/** What a run cost per message: this process's CPU, and the commands Redis ran. */
interface RunCost {
  perSecond: number;
  cpuMicros: number;
  commands: number;
}

/** Redis's count of commands run (a script's own calls included), to tell what each side asks of it per message. */
async function commandsProcessed(): Promise<number> {
  const redis = new Redis(REDIS_URL);
  const info = await redis.info("stats");
  redis.disconnect();
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

/** Bare BullMQ on the same Redis: add -> process (nothing) -> complete, one job per message. */
async function bareBullmq(prefix: string): Promise<RunCost> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue("bare", { connection, prefix });
  let done = 0;
  let finished: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const worker = new Worker(
    "bare",
    async () => {
      if (++done === CONVERSATIONS) finished();
      return "ok";
    },
    { connection: workerConnection, prefix, concurrency: CONCURRENCY },
  );
  await worker.waitUntilReady();
  const commandsBefore = await commandsProcessed();
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, (_, i) =>
      queue.add("job", { i }, { removeOnComplete: true, jobId: `b-${i}` }),
    ),
  );
  await allDone;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const commands = (await commandsProcessed()) - commandsBefore;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  workerConnection.disconnect();
  return {
    perSecond: CONVERSATIONS / seconds,
    cpuMicros: (used.user + used.system) / CONVERSATIONS,
    commands: commands / CONVERSATIONS,
  };
}

interface SwitchyardRun {
  turnsPerSecond: number;
  cpuMicros: number;
  commands: number;
  queueWait: number[];
  overhead: number[];
}

export async function switchyardTurns(prefix: string): Promise<SwitchyardRun> {
  const queueWait: number[] = [];
  const overhead: number[] = [];
  const app = await startSwitchyard({
    redisUrl: REDIS_URL,
    prefix,
    registry: new ToolRegistry([echo]),
    provider: instantProvider,
    concurrency: CONCURRENCY,
    observe: {
      queueWait: (ms) => queueWait.push(ms),
      turn: ({ result, ms }) => overhead.push(ms - (result?.modelMs ?? 0) - (result?.toolMs ?? 0)),
    },
  });
  await app.worker?.worker.waitUntilReady();
  const commandsBefore = await commandsProcessed();
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, (_, i) =>
      app.queue.enqueue({
        platform: "console",
        workspace: "bench",
        channel: "c",
        conversation: `conv${i}`,
        user: "u",
        text: "hello",
        attachments: [],
        eventId: randomUUID(),
        time: Date.now(),
      }),
    ),
  );
  while ((await app.redis.xlen(app.outbox.stream)) < CONVERSATIONS) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  // Includes the bench's own XLEN polls above, about 0.1 per turn.
  const commands = (await commandsProcessed()) - commandsBefore;
  if (process.env.BENCH_VERBOSE) {
    process.stderr.write(
      `switchyard: ${seconds.toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s cpu\n`,
    );
  }
  await app.close();
  return {
    turnsPerSecond: CONVERSATIONS / seconds,
    cpuMicros: (used.user + used.system) / CONVERSATIONS,
    commands: commands / CONVERSATIONS,
    queueWait,
    overhead,
  };
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function cleanup(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
  redis.disconnect();
}

/** Bare BullMQ jobs/s against Switchyard turns/s, same Redis, same run. Returns whether the target holds. */
export async function benchPipeline(print: (line: string) => void): Promise<boolean> {
  const run = randomUUID().slice(0, 8);
  const barePrefix = `sybench-bare-${run}`;
  const syPrefix = `sybench-sy-${run}`;
  try {
    // Interleave two rounds of each, so drift on a shared machine hits both sides.
    const bare: RunCost[] = [];
    const turns: SwitchyardRun[] = [];
    for (let round = 0; round < 2; round++) {
      bare.push(await bareBullmq(`${barePrefix}-${round}`));
      turns.push(await switchyardTurns(`${syPrefix}-${round}`));
    }
    const fastest = bare.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
    const bestBare = fastest.perSecond;
    const best = turns.reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a));
    const ratio = best.turnsPerSecond / bestBare;
    const ok = ratio >= TURNS_TARGET;
    print("");
    print(
      `Pipeline: ${CONVERSATIONS} conversations, one tool call per turn, instant model, concurrency ${CONCURRENCY}`,
    );
    print(
      `bare BullMQ          ${bestBare.toFixed(0).padStart(6)} jobs/s   (add -> process -> complete)`,
    );
    print(`Switchyard           ${best.turnsPerSecond.toFixed(0).padStart(6)} turns/s`);
    print(
      `ratio                ${(ratio * 100).toFixed(1)}%  (target >= ${TURNS_TARGET * 100}%: ${ok ? "met" : "MISSED"})`,
    );
    print(
      `queue wait           p50 ${percentile(best.queueWait, 0.5).toFixed(1)} ms   p99 ${percentile(best.queueWait, 0.99).toFixed(1)} ms`,
    );
    print(
      `framework overhead   p50 ${percentile(best.overhead, 0.5).toFixed(1)} ms   p99 ${percentile(best.overhead, 0.99).toFixed(1)} ms  per turn`,
    );
    // Where the time goes: the bench process's CPU and Redis's commands, per message.
    print(
      `cost per message     bare ${fastest.cpuMicros.toFixed(0)} µs CPU, ${fastest.commands.toFixed(1)} Redis commands;  Switchyard ${best.cpuMicros.toFixed(0)} µs CPU, ${best.commands.toFixed(1)} Redis commands (scripts' calls included)`,
    );
    return ok;
  } finally {
    for (let round = 0; round < 2; round++) {
      await cleanup(`${barePrefix}-${round}`);
      await cleanup(`${syPrefix}-${round}`);
    }
  }
}
