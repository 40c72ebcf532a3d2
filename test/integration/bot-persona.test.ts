import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestBot, type TestBot } from "switchyard/testing";
import { afterEach, describe, expect, it } from "vitest";
import { REDIS_URL } from "../support/redis.ts";

const PERSONA_FILE = "You are Ada, the platform team's helper.\nAnswer in two sentences.\n";
const SUPPORT = "You are the support desk. Ask for the version first.";

let bot: TestBot | undefined;
let dir: string | undefined;

afterEach(async () => {
  await bot?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The system prompt of each request the model got, in order. */
const systemPrompts = () => bot?.model.requests().map((request) => request.system) ?? [];

/** The bot from a config file beside a persona file, through the test kit's public API. */
async function startBot(config: string): Promise<TestBot> {
  dir = mkdtempSync(join(tmpdir(), "sy-persona-"));
  writeFileSync(join(dir, "persona.md"), PERSONA_FILE);
  writeFileSync(join(dir, "switchyard.yaml"), config);
  bot = await createTestBot({
    config: join(dir, "switchyard.yaml"),
    builtins: [],
    redis: REDIS_URL,
    queue: { debounceMs: 0 },
  });
  return bot;
}

async function ask(bot: TestBot, channel: string, text: string): Promise<void> {
  await bot.say(text, { channel });
  await bot.nextAnswer();
}

describe("the persona", () => {
  it("sends the persona file's bytes as the system prompt, the same on every turn", async () => {
    const bot = await startBot("agent:\n  persona_file: ./persona.md\n");
    await ask(bot, "C0GENERAL", "hi");
    await ask(bot, "C0GENERAL", "and again");
    const [first, second] = systemPrompts();
    expect(first?.startsWith(PERSONA_FILE.trim())).toBe(true);
    expect(second).toBe(first);
  });

  it("gives a channel its override and leaves every other channel's prompt as it was", async () => {
    const bot = await startBot(
      `agent:\n  persona_file: ./persona.md\n  channels:\n    "slack:C0SUPPORT": { persona: ${JSON.stringify(SUPPORT)} }\n`,
    );
    await ask(bot, "C0GENERAL", "hi");
    await ask(bot, "C0SUPPORT", "it broke");
    await ask(bot, "C0GENERAL", "still there?");
    const [general, support, generalAgain] = systemPrompts();
    expect(support?.startsWith(SUPPORT)).toBe(true);
    expect(support).not.toContain("Ada");
    expect(generalAgain).toBe(general);
    // Only the persona block differs: what follows it is the same bytes.
    expect(support?.slice(SUPPORT.length)).toBe(general?.slice(PERSONA_FILE.trim().length));
  });
});
