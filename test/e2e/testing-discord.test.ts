import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineTool } from "switchyard";
import { createTestBot, TEST_DISCORD_CHANNEL, type TestBot } from "switchyard/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runTestCommand } from "../../src/testing/scenario-command.ts";
import { REDIS_URL } from "../support/redis.ts";

/** The test kit's Discord: the real DiscordChannel (discord.js) against the fake gateway and REST. */
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
  const bot = await createTestBot({ redis: REDIS_URL, platforms: ["discord"], ...options });
  running.push(bot);
  return bot;
}

describe("createTestBot on Discord", () => {
  it("answers a DM, and a mention in the guild's channel, once each", async () => {
    const bot = await start({ model: { sequence: ["one", "two"] } });
    const dm = await bot.say("hello");
    expect((await bot.nextAnswer()).posts).toMatchObject([
      { platform: "discord", channel: dm.channel, text: "one" },
    ]);
    await bot.say("and here", { channel: TEST_DISCORD_CHANNEL });
    expect((await bot.nextAnswer()).posts).toMatchObject([
      { platform: "discord", channel: TEST_DISCORD_CHANNEL, text: "two" },
    ]);
    expect(bot.answers()).toHaveLength(2);
  });

  it("waits for a click on Approve before a tool under ask runs, then runs it once", async () => {
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
});

const EXAMPLE = fileURLToPath(new URL("../../examples/tested-bot/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sy-discord-scenario-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a scenario on Discord", () => {
  it("runs its steps in a DM and the guild's channel and passes", async () => {
    const file = join(dir, "discord.yaml");
    writeFileSync(
      file,
      [
        "name: stock on Discord",
        `bot: ${join(EXAMPLE, "parts.js")}`,
        "platforms: [discord]",
        "model:",
        "  rules:",
        "    - when: kettle",
        "      reply: [{ tool: stock_level, args: { product: ember-kettle } }, 'Kit: {{lastToolResult}}']",
        "steps:",
        "  - say: Do we have the kettle?",
        "    expect: { answer_contains: 12 ember-kettle in stock, tool_called: stock_level }",
        `  - say: { text: the kettle again, channel: "${TEST_DISCORD_CHANNEL}" }`,
        "    expect: { answer_contains: 12 ember-kettle, answers: 2 }",
      ].join("\n"),
    );
    const lines: string[] = [];
    const code = await runTestCommand([file, "--redis", REDIS_URL], {
      print: (l) => lines.push(l),
    });
    expect(lines.join("\n"), lines.join("\n")).toContain("1 of 1 scenario passed.");
    expect(code).toBe(0);
  }, 60_000);
});
