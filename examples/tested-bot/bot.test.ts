import { createTestBot, type ModelScript, type TestBot } from "switchyard/testing";
import { afterEach, expect, it } from "vitest";
import { persona, stockLevel } from "./parts.js";

// Each test starts the bot with its real tool and persona against fake Slack
// and Telegram and a scripted model; Redis is REDIS_URL's, else a throwaway one.
let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.stop();
  bot = undefined;
});

/** The model asks the tool about the product named, then answers with what the tool said. */
const model: ModelScript = {
  rules: [
    {
      when: /how many ([\w-]+)/i,
      reply: [
        (r) => ({
          tool: "stock_level",
          args: { product: /how many ([\w-]+)/i.exec(r.lastUserText)?.[1] ?? "" },
        }),
        (r) => `Kit here: ${r.lastToolResult}`,
      ],
    },
  ],
};

it("answers a stock question with what its tool found", async () => {
  bot = await createTestBot({ tools: [stockLevel], persona, model });
  await bot.say("How many ember-kettle do we have?");
  expect((await bot.nextAnswer()).text).toBe("Kit here: 12 ember-kettle in stock.");
  expect(bot.toolCalls()).toMatchObject([
    { name: "stock_level", args: { product: "ember-kettle" } },
  ]);
});

it("offers the model its tool and speaks as its persona", async () => {
  bot = await createTestBot({ tools: [stockLevel], persona, model });
  await bot.say("hello");
  await bot.nextAnswer();
  expect(bot.contract().tools).toContain("stock_level");
  expect(bot.contract().system).toContain("You are Kit, the shop's stock assistant.");
});

it("answers each message once, on Telegram too", async () => {
  bot = await createTestBot({ tools: [stockLevel], persona, model, platforms: ["telegram"] });
  await bot.say("How many slate-mug are left?");
  expect((await bot.nextAnswer()).text).toBe("Kit here: slate-mug is sold out.");
  await bot.say("How many teapot?");
  expect((await bot.nextAnswer()).text).toBe("Kit here: There is no product called teapot.");
  expect(bot.answers()).toHaveLength(2);
});
