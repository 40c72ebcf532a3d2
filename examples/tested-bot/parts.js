import { defineTool } from "switchyard";
import { z } from "zod";

/*
 * The bot's own parts, in a file of their own so that the bot (bot.ts), its
 * tests (bot.test.ts) and its scenarios (scenarios/*.yaml, run by
 * `switchyard test` on plain node) use the very same ones. JavaScript, so
 * that `switchyard test` can import it without a TypeScript loader.
 */

/** @type {Readonly<Record<string, number>>} */
const STOCK = { "ember-kettle": 12, "slate-mug": 0 };

/** How many of a product the shop has: the bot's tool. */
export const stockLevel = defineTool({
  id: "stock_level",
  description: "How many of a product are in stock, by its slug (e.g. ember-kettle).",
  parameters: z.object({ product: z.string() }),
  execute: ({ product }) => {
    const count = STOCK[product];
    if (count === undefined) return `There is no product called ${product}.`;
    return count === 0 ? `${product} is sold out.` : `${count} ${product} in stock.`;
  },
});

export const persona =
  "You are Kit, the shop's stock assistant. Answer in one sentence, and check stock_level before you say what is in stock.";

/** What `switchyard test` starts for a scenario: the options of createTestBot. */
export const testBot = { tools: [stockLevel], persona };
