import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool } from "switchyard";
import { createTestBot, startFakeOpenAI, type TestBot } from "switchyard/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { REDIS_URL } from "../support/redis.ts";

/**
 * The test kit through its public API (`switchyard/testing`), as a bot
 * author uses it: a bot with a tool of its own on the fake Slack and
 * Telegram, a scripted model, and the project's Redis.
 */
const weather = defineTool({
  id: "weather",
  description: "Current weather for a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny in ${city}`,
});

const deploy = defineTool({
  id: "deploy",
  description: "Deploys the service.",
  parameters: z.object({ env: z.string() }),
  approval: "ask",
  execute: async ({ env }) => `deployed to ${env}`,
});

const running: TestBot[] = [];
afterEach(async () => {
  for (const bot of running.splice(0)) await bot.stop();
});

async function start(options: Parameters<typeof createTestBot>[0]): Promise<TestBot> {
  const bot = await createTestBot({ redis: REDIS_URL, ...options });
  running.push(bot);
  return bot;
}

describe("switchyard/testing", () => {
  it("runs a tool the scripted model calls and answers with its result, once, on Slack", async () => {
    const bot = await start({
      tools: [weather],
      persona: "You are Ada, a weather helper.",
      model: {
        rules: [
          {
            when: /weather in (\w+)/i,
            reply: [
              { tool: "weather", args: { city: "Paris" } },
              (r) => `Report: ${r.lastToolResult}`,
            ],
          },
        ],
      },
    });
    await bot.say("What is the weather in Paris?");
    const answer = await bot.nextAnswer();
    expect(answer.text).toBe("Report: Sunny in Paris");
    expect(bot.toolCalls()).toMatchObject([
      { name: "weather", args: { city: "Paris" }, result: "Sunny in Paris" },
    ]);
    expect(bot.contract().tools).toContain("weather");
    expect(bot.contract().system).toContain("You are Ada, a weather helper.");
    expect(bot.answers()).toHaveLength(1);
  });

  it("answers in the mention's thread in a channel, and on Telegram in the person's chat", async () => {
    const bot = await start({
      platforms: ["slack", "telegram"],
      model: { sequence: ["one", "two"] },
    });
    const said = await bot.say("hello there", { channel: "C0GENERAL" });
    const first = await bot.nextAnswer();
    expect(first.posts).toMatchObject([
      { platform: "slack", channel: "C0GENERAL", thread: said.thread, text: "one" },
    ]);
    await bot.say("and here", { platform: "telegram" });
    const second = await bot.nextAnswer();
    expect(second.posts).toMatchObject([{ platform: "telegram", channel: "5001", text: "two" }]);
  });

  it("waits for a person's approval before a tool under ask runs, then runs it once", async () => {
    const bot = await start({
      tools: [deploy],
      model: {
        rules: [
          {
            when: "deploy",
            reply: [{ tool: "deploy", args: { env: "prod" } }, (r) => `Done: ${r.lastToolResult}`],
          },
        ],
      },
    });
    await bot.say("please deploy to prod");
    const request = await bot.nextAnswer();
    expect(request.posts.flatMap((p) => p.controls.map((c) => c.label))).toContain("Approve");
    expect(bot.toolCalls()).toEqual([]);
    await bot.approve();
    const done = await bot.nextAnswer();
    expect(done.text).toContain("Done: deployed to prod");
    expect(bot.toolCalls()).toMatchObject([{ name: "deploy", result: "deployed to prod" }]);
  });

  it("records a real model's replies into a cache file and replays them offline, the same answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sy-model-cache-"));
    const cacheFile = join(dir, "replies.json");
    // The "real" model: any OpenAI-compatible server that wants a key.
    const real = await startFakeOpenAI({
      apiKey: "real-key",
      responder: (request) => {
        const result = request.body.messages.findLast((m: { role: string }) => m.role === "tool");
        return result
          ? { content: `Real says: ${result.content}` }
          : { toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] };
      },
    });
    try {
      const recording = await start({
        tools: [weather],
        model: { forward: { baseURL: real.url, apiKey: "real-key", model: "gpt-real", cacheFile } },
      });
      await recording.say("weather in Oslo?");
      expect((await recording.nextAnswer()).text).toBe("Real says: Sunny in Oslo");
      await recording.stop();
      expect(real.requests.map((r) => r.body.model)).toEqual(["gpt-real", "gpt-real"]);
      expect(Object.keys(JSON.parse(readFileSync(cacheFile, "utf8")))).toHaveLength(2);
      await real.close();

      const replaying = await start({
        tools: [weather],
        model: { forward: { baseURL: real.url, model: "gpt-real", cacheFile } },
      });
      await replaying.say("weather in Oslo?");
      expect((await replaying.nextAnswer()).text).toBe("Real says: Sunny in Oslo");
      expect(replaying.toolCalls()).toMatchObject([{ name: "weather", args: { city: "Oslo" } }]);
      expect(real.requests).toHaveLength(2);
    } finally {
      await real.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
