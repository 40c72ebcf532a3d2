import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

const ENGINEERING = "You are the engineering helper.\nAnswer with the command first.\n";

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

describe("an agent's persona file, through createBot", () => {
  it("is read beside the config and sent where the agent answers; elsewhere the top-level persona stays", async () => {
    dir = mkdtempSync(join(tmpdir(), "sy-agent-persona-"));
    mkdirSync(join(dir, "personas"));
    writeFileSync(join(dir, "personas", "engineering.md"), ENGINEERING);
    writeFileSync(
      join(dir, "switchyard.yaml"),
      [
        "agent:",
        "  persona: You are Ada.",
        "agents:",
        "  - id: engineering",
        "    persona_file: ./personas/engineering.md",
        "bindings:",
        '  - { agent: engineering, channel: "memory:eng" }',
        "",
      ].join("\n"),
    );
    fake = await startFakeOpenAI();
    prefix = uniquePrefix("agent-persona");
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
    for (const where of ["eng", "general"]) {
      const before = channel.posts.length;
      await channel.say(where, "hi");
      await until(() => (channel.posts.length > before ? true : undefined));
    }
    const [eng, general] = fake.requests.map((r) => r.body.messages[0].content as string);
    expect(eng?.startsWith(ENGINEERING.trim())).toBe(true);
    expect(general?.startsWith("You are Ada.")).toBe(true);
    expect(fake.requests.map((r) => r.body.prompt_cache_key)).toEqual([
      expect.stringMatching(/#agent:engineering$/),
      expect.not.stringContaining("#agent:"),
    ]);
  });
});
