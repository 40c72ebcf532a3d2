import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { type AnyTool, defineTool } from "../../src/core/tools/tool.ts";
import type { OutboxEntry } from "../../src/platforms/terminal/outbox.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { type Switchyard, type SwitchyardOptions, startSwitchyard } from "../../src/runtime/app.ts";
import { RedisFactory } from "../../src/store/redis/redis-factory.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, testRedisFactory, uniquePrefix } from "./redis.ts";

/** A tool whose result says what it was asked, so tests can see it ran. */
export const lookupTool = defineTool({
  id: "lookup",
  description: "Looks a word up in the team glossary.",
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => `glossary: ${word} means something`,
});

export const bigTool = defineTool({
  id: "calendar_create",
  description: "Creates a calendar event with attendees, a time and a room.",
  parameters: z.object({ title: z.string(), at: z.string() }),
  defer: true,
  execute: ({ title }) => `created ${title}`,
});

/** The model API key a pipeline sends: distinctive, so a test can look for it where it must not be. */
export const PIPELINE_API_KEY = "sk-switchyard-pipeline-test-9f2c71";

export interface Pipeline {
  readonly app: Switchyard;
  readonly fake: FakeOpenAI;
  readonly prefix: string;
  message(text: string, overrides?: Partial<InboundMessage>): InboundMessage;
  /** Waits until `count` posts are in the outbox (or fails after `timeoutMs`). */
  posts(count: number, timeoutMs?: number): Promise<OutboxEntry[]>;
  /**
   * Waits until the fake model has received `count` requests (or fails after
   * `timeoutMs`): the moment a turn is surely running, however slow the machine.
   */
  requests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** `keepKeys`: close leaves the prefix's keys for the next start under it (the test deletes them). */
export async function startPipeline(
  options: Partial<SwitchyardOptions> & { tools?: AnyTool[]; keepKeys?: boolean } = {},
): Promise<Pipeline> {
  const fake = await startFakeOpenAI();
  const prefix = options.prefix ?? uniquePrefix("pipe");
  const app = await startSwitchyard({
    // A test's own Redis (one it breaks on purpose) when it names one; the topology under test otherwise.
    redis: options.redisUrl ? RedisFactory.single(options.redisUrl) : testRedisFactory(),
    prefix,
    registry: new ToolRegistry(options.tools ?? [lookupTool, bigTool]),
    provider: createOpenAIProvider({
      apiKey: PIPELINE_API_KEY,
      baseURL: fake.url,
      model: "fake-model",
    }),
    // Tests time their turns; the quiet window is tested on its own.
    queueBehaviour: () => ({ mode: "collect", debounceMs: 0 }),
    leaseMs: 2_000,
    lockDurationMs: 2_000,
    stalledIntervalMs: 1_000,
    ...options,
  });
  const address = {
    platform: "console",
    workspace: "local",
    channel: "terminal",
    conversation: "main",
  };
  return {
    app,
    fake,
    prefix,
    message: (text, overrides = {}) => ({
      ...address,
      user: "alice",
      text,
      attachments: [],
      eventId: randomUUID(),
      time: Date.now(),
      ...overrides,
    }),
    posts: (count, timeoutMs = 15_000) => waitForPosts(app, count, timeoutMs),
    requests: (count, timeoutMs = 15_000) => waitForRequests(fake, count, timeoutMs),
    async close() {
      await app.close();
      await fake.close();
      if (!options.keepKeys) await cleanup(app.redis, prefix);
    },
  };
}

async function waitForPosts(
  app: Switchyard,
  count: number,
  timeoutMs: number,
): Promise<OutboxEntry[]> {
  const deadline = Date.now() + timeoutMs;
  let entries: OutboxEntry[] = [];
  while (Date.now() < deadline) {
    entries = (await app.outbox.read("0", 50)).filter((e) => e.kind === "post");
    if (entries.length >= count) return entries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `expected ${count} posts within ${timeoutMs} ms, got ${entries.length}: ${JSON.stringify(entries.map((e) => e.text))}`,
  );
}

async function waitForRequests(fake: FakeOpenAI, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (fake.requests.length < count) {
    if (Date.now() > deadline) {
      throw new Error(
        `expected ${count} model requests within ${timeoutMs} ms, got ${fake.requests.length}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function cleanup(redis: Redis, prefix: string): Promise<void> {
  const fresh = connectRedis();
  try {
    await deleteKeysUnder(fresh, prefix);
  } finally {
    fresh.disconnect();
  }
  void redis;
}
