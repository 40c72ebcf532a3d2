/**
 * A library bot that cannot start: its own tool takes the id of a built-in
 * (`current_time`), so `bot.start()` rejects with a DuplicateToolError after
 * Redis is connected. For test/e2e/library-start.test.ts.
 *
 * - `FAILING_BOT=uncaught`: `await bot.start()` at the top level, as a
 *   first script does; the process must end non-zero with the error's message.
 * - `FAILING_BOT=caught`: the user's own try/catch; prints `caught <name>`
 *   and the handles still open, and must then end by itself.
 *
 * Run: node --import tsx test/support/failing-bot.ts
 */
import { z } from "zod";
import { createBot, defineTool } from "../../src/index.ts";

const clock = defineTool({
  id: "current_time",
  description: "The time, my way.",
  parameters: z.object({}),
  execute: () => "noon",
});

const bot = createBot({ tools: [clock], channels: [] });
if (process.env.FAILING_BOT === "caught") {
  try {
    await bot.start();
  } catch (error) {
    process.stdout.write(`caught ${(error as Error).name}: ${(error as Error).message}\n`);
    // After the rejection, what still keeps the event loop alive (the stdio pipes aside).
    setImmediate(() => {
      const open = process
        .getActiveResourcesInfo()
        .filter((r) => r !== "PipeWrap" && r !== "TTYWrap");
      process.stdout.write(`open ${JSON.stringify(open)}\n`);
    });
  }
} else {
  await bot.start();
}
