import { consoleChannel, createBot, defineTool } from "switchyard";
import { z } from "zod";

const orderStatus = defineTool({
  id: "order_status",
  description: "Where a customer's order is: its status and carrier.",
  parameters: z.object({ order: z.string().describe("The order number, e.g. A-1042") }),
  execute: ({ order }) => `Order ${order} shipped on 2026-11-30 with Parcelforce.`,
});

const terminal = consoleChannel(); // type on stdin, answers on stdout
const bot = createBot({ tools: [orderStatus], channels: [terminal] });
await bot.start();
await terminal.finished; // end of input, every answer printed
await bot.stop();
