import { defineTool } from "switchyard";
import { z } from "zod";

/**
 * The bot's own parts, in a file of their own so that the bot (bot.ts) and
 * its tests (bot.test.ts) use the very same ones.
 */

const STOCK: Readonly<Record<string, number>> = { "ember-kettle": 12, "slate-mug": 0 };

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
