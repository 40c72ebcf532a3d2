import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelLimits } from "../../src/core/config/index.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import type { OutboxEntry } from "../../src/platforms/terminal/outbox.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { type Switchyard, startSwitchyard } from "../../src/runtime/app.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, testRedisFactory, uniquePrefix } from "../support/redis.ts";

const NEVER = 600_000;

const written: string[] = [];
const writeNote = defineTool({
  id: "write_note",
  description: "Writes a note.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => {
    written.push(text);
    return "written";
  },
});

interface Bot {
  readonly app: Switchyard;
  readonly fake: FakeOpenAI;
  /** Every turn's outcome as the worker reported it; "error" means BullMQ will retry the turn. */
  readonly outcomes: string[];
  send(text: string): Promise<void>;
  posts(count: number): Promise<OutboxEntry[]>;
  close(): Promise<void>;
}

async function startBot(limits: Partial<ModelLimits>): Promise<Bot> {
  const fake = await startFakeOpenAI();
  const prefix = uniquePrefix("model-limits");
  const outcomes: string[] = [];
  const app = await startSwitchyard({
    redis: testRedisFactory(),
    prefix,
    registry: new ToolRegistry([writeNote]),
    provider: createOpenAIProvider({ apiKey: "test", baseURL: fake.url, model: "m", limits }),
    leaseMs: 2_000,
    lockDurationMs: 2_000,
    stalledIntervalMs: 1_000,
    observe: { turn: ({ outcome }) => void outcomes.push(outcome) },
  });
  return {
    app,
    fake,
    outcomes,
    send: async (text) => {
      await app.queue.enqueue({
        platform: "console",
        workspace: "local",
        channel: "terminal",
        conversation: "main",
        user: "alice",
        text,
        attachments: [],
        eventId: randomUUID(),
        time: Date.now(),
      });
    },
    posts: async (count) => {
      let entries: OutboxEntry[] = [];
      await expect
        .poll(
          async () => {
            entries = (await app.outbox.read("0", 50)).filter((e) => e.kind === "post");
            return entries.length;
          },
          { timeout: 30_000, interval: 50 },
        )
        .toBeGreaterThanOrEqual(count);
      return entries;
    },
    close: async () => {
      await app.close();
      await fake.close();
      const redis = connectRedis({});
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    },
  };
}

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
  written.length = 0;
});

describe("a model that stalls, through the queue and the worker", () => {
  it("answers a stalled stream once with what was said and what to do, and the conversation moves on", async () => {
    bot = await startBot({ firstByteMs: NEVER, idleMs: 400 });
    bot.fake.script({ content: "I was about to say something useful", stallAfterChunks: 3 });

    await bot.send("tell me something");
    const [answer] = await bot.posts(1);

    expect(answer?.text).toMatch(
      /^I was \n\n\(The model went quiet in the middle of its reply \(nothing for 400 ms\), so I stopped waiting\. Please try again\./,
    );
    await bot.send("and now?");
    const posts = await bot.posts(2);
    expect(posts[1]?.text).toBe("echo: and now?");
    // One model request per message: neither the provider nor BullMQ retried the stalled turn.
    expect(bot.fake.requests).toHaveLength(2);
    // A turn's outcome is reported once it ended, which may be just after its answer landed.
    await expect.poll(() => bot?.outcomes).toEqual(["provider_error", "answer"]);
  });

  it("answers a model that never sends headers once, after the first-byte timeout", async () => {
    bot = await startBot({ firstByteMs: 400 });
    bot.fake.script({ neverAnswer: true });

    await bot.send("hello?");
    const [answer] = await bot.posts(1);

    expect(answer?.text).toMatch(/^The model did not start its reply within 400 ms/);
    expect(bot.fake.requests).toHaveLength(1);
    await expect.poll(() => bot?.outcomes).toEqual(["provider_error"]);
  });
});

describe("enormous tool calls, through the agent loop", () => {
  it("tells the model its 2 MB call was not run, runs the others, and delivers its next answer", async () => {
    bot = await startBot({});
    // The provider's own tests stream 10 MB; 2 MB is as far over the cap and kinder to a shared machine.
    const big = JSON.stringify({ text: "x".repeat(2 * 1024 * 1024) });
    bot.fake.script(
      {
        toolCalls: [
          { id: "big", name: "write_note", arguments: big },
          { id: "small", name: "write_note", arguments: { text: "groceries" } },
        ],
        argumentsChunkChars: 65_536,
      },
      { content: "I saved the short note; the long one was too big." },
    );

    await bot.send("save these notes");
    const [answer] = await bot.posts(1);

    expect(answer?.text).toBe("I saved the short note; the long one was too big.");
    expect(written).toEqual(["groceries"]);
    const second = bot.fake.requests[1]?.body.messages as { role: string; content?: string }[];
    const results = second.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results[0]).toBe(
      `The arguments for write_note were not used: ${big.length} characters, more than the 100000 one tool call may have. Call it again with only the values it needs; send long content in smaller parts.`,
    );
    expect(results[1]).toBe("written");
    // What goes back to the model is the short note, not the megabytes.
    expect(bot.fake.requests[1]?.rawBody.length).toBeLessThan(10_000);
  });
});
