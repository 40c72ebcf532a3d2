import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";

/**
 * examples/custom-channel/bot.ts as it is, run on the source (vitest maps
 * `switchyard` to src/index.ts) against the fake model and the test Redis:
 * its channel takes every message through takeMessage, so the owner is
 * answered and a stranger gets a pairing code without the model seeing them.
 * test/e2e/package.test.ts type-checks it against the packed package.
 */
describe("the custom-channel example", () => {
  let fake: FakeOpenAI;
  const prefix = uniquePrefix("example-channel");
  const saved = { ...process.env };
  const printed: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.script({ content: "I am the demo bot." });
    Object.assign(process.env, redisEnv(), {
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
      SWITCHYARD_PREFIX: prefix,
      LOG_LEVEL: "warn",
    });
    vi.spyOn(console, "log").mockImplementation((line: unknown) => {
      printed.push(String(line));
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    process.env = saved;
    await fake?.close();
    const redis = connectRedis();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("answers its owner and gives a stranger a pairing code, never the model", async () => {
    await import("../../examples/custom-channel/bot.ts");
    expect(printed).toHaveLength(2);
    expect(printed[0]).toBe("ada: I am the demo bot.");
    expect(printed[1]).toMatch(
      /^stranger: I don't know you yet\. Your pairing code is [A-Z2-9]{8}: give it to an owner of this bot, who lets you in with \/access approve [A-Z2-9]{8}\./,
    );
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]?.body.messages)).not.toContain("stranger");
  }, 60_000);
});
