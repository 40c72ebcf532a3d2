import { defineConfig } from "vitest/config";

// Each test starts a whole bot (fake Slack and Telegram, the queue, a worker, a Redis
// connection): a second or two here, more on a busy CI machine, where vitest's 5 s
// default for a test has run out before the bot said a word.
export default defineConfig({
  test: { testTimeout: 30_000, hookTimeout: 30_000 },
});
