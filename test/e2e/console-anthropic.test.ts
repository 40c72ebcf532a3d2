import { afterEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { runConsoleStart } from "../support/start-command.ts";

let fake: FakeAnthropic | undefined;
const prefixes: string[] = [];
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  const redis = connectRedis();
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

describe("switchyard start on Claude (the Anthropic Messages API)", () => {
  it("runs a turn with a tool call, and reads the first turn back from the prompt cache on the next", async () => {
    fake = await startFakeAnthropic({ apiKey: "sk-ant-e2e-secret", minCacheTokens: 256 });
    fake.script(
      { toolUses: [{ id: "toolu_1", name: "current_time", input: { timeZone: "UTC" } }] },
      { content: "It is late." },
      { content: "Still late." },
    );
    const prefix = uniquePrefix("console-claude");
    prefixes.push(prefix);
    const env = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      ANTHROPIC_API_KEY: "sk-ant-e2e-secret",
      ANTHROPIC_BASE_URL: fake.url,
      SWITCHYARD_MODEL: "claude-e2e",
    };
    // One run per turn: piped lines that arrive together would make one turn.
    const one = await runConsoleStart("what time is it?\n", env);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("It is late.");
    expect(one.stderr).not.toContain("sk-ant-e2e-secret");
    const two = await runConsoleStart("and now?\n", env);
    expect(two.stdout).toContain("Still late.");
    const usage = await runConsoleStart("/usage\n", env);
    expect(fake.requests).toHaveLength(3);
    const [first, second, third] = fake.requests.map((r) => r.body);
    expect(first.model).toBe("claude-e2e");
    // The contract's tools in Anthropic's shape, the first breakpoint on the last resident tool.
    const names = first.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("current_time");
    expect(first.tools.at(-1)).toMatchObject({
      name: "tool_search",
      cache_control: { type: "ephemeral" },
    });
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    // The tool ran, and its result went back paired with its call.
    expect(second.messages[1].content).toContainEqual(
      expect.objectContaining({ type: "tool_use", id: "toolu_1", name: "current_time" }),
    );
    expect(second.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_1",
    });
    // The second turn read the first from the cache.
    expect(third.messages.length).toBeGreaterThan(second.messages.length);
    const read = fake.requests[2]?.usage?.cache_read_input_tokens ?? 0;
    expect(read).toBeGreaterThan(0);
    // /usage counts the cache reads.
    expect(usage.stdout).toMatch(/today: [\d,]+ tokens \(prompt [\d,]+, cached [1-9]/);
  }, 60_000);
});
