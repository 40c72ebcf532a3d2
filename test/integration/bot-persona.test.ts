import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { type Bot, createBot } from "../../src/runtime/create-bot.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { MemoryChannel } from "../support/memory-channel.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";

const PERSONA_FILE = "You are Ada, the platform team's helper.\nAnswer in two sentences.\n";
const SUPPORT = "You are the support desk. Ask for the version first.";

let bot: Bot | undefined;
let fake: FakeOpenAI | undefined;
let dir: string | undefined;
let prefix = "";

afterEach(async () => {
  await bot?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  const redis = connectRedis();
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** The system prompt of each request the model got, in order. */
const systemPrompts = () =>
  (fake?.requests ?? []).map((request) => request.body.messages[0].content as string);

async function startBot(config: string): Promise<MemoryChannel> {
  dir = mkdtempSync(join(tmpdir(), "sy-persona-"));
  writeFileSync(join(dir, "persona.md"), PERSONA_FILE);
  writeFileSync(join(dir, "switchyard.yaml"), config);
  fake = await startFakeOpenAI();
  prefix = uniquePrefix("persona");
  const channel = new MemoryChannel();
  bot = createBot({
    config: join(dir, "switchyard.yaml"),
    channels: [channel],
    builtins: [],
    provider: createOpenAIProvider({ apiKey: "test", baseURL: fake.url, model: "fake-model" }),
    env: { ...redisEnv() },
    prefix,
    queue: { debounceMs: 0 },
    logger: createLogger({ level: "silent" }),
    processGuard: false,
  });
  await bot.start();
  return channel;
}

async function ask(channel: MemoryChannel, where: string, text: string): Promise<void> {
  const before = channel.posts.length;
  await channel.say(where, text);
  await until(() => (channel.posts.length > before ? true : undefined));
}

describe("the persona", () => {
  it("sends the persona file's bytes as the system prompt, the same on every turn", async () => {
    const channel = await startBot("agent:\n  persona_file: ./persona.md\n");
    await ask(channel, "general", "hi");
    await ask(channel, "general", "and again");
    const [first, second] = systemPrompts();
    expect(first?.startsWith(PERSONA_FILE.trim())).toBe(true);
    expect(second).toBe(first);
  });

  it("gives a channel its override and leaves every other channel's prompt as it was", async () => {
    const channel = await startBot(
      `agent:\n  persona_file: ./persona.md\n  channels:\n    "memory:support": { persona: ${JSON.stringify(SUPPORT)} }\n`,
    );
    await ask(channel, "general", "hi");
    await ask(channel, "support", "it broke");
    await ask(channel, "general", "still there?");
    const [general, support, generalAgain] = systemPrompts();
    expect(support?.startsWith(SUPPORT)).toBe(true);
    expect(support).not.toContain("Ada");
    expect(generalAgain).toBe(general);
    // Only the persona block differs: what follows it is the same bytes.
    expect(support?.slice(SUPPORT.length)).toBe(general?.slice(PERSONA_FILE.trim().length));
  });
});
