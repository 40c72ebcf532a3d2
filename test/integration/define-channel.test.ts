import { describe, expect, it } from "vitest";
import { createBot, createLogger } from "../../src/index.ts";
import { recordedChannel } from "../support/recorded-channel.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";

/**
 * A channel made with defineChannel in a worker-only bot, on a real Redis (the
 * pure lifecycle is in test/unit/define-channel.test.ts).
 */

describe("defineChannel in a worker-only bot", () => {
  it("readies a worker-only process's outbound with the bot's Redis and prefix, and never starts its ingress", async () => {
    const prefix = uniquePrefix("define-worker");
    const seen: string[] = [];
    const { factory, log } = recordedChannel({
      prepareWorker: ({ settings, prefix: given }) => void seen.push(`${settings.name} ${given}`),
    });
    const bot = createBot({
      role: "worker",
      channels: [factory({ name: "a" })],
      builtins: [],
      env: redisEnv(),
      prefix,
      logger: createLogger({ level: "silent" }),
      processGuard: false,
    });
    await bot.start();
    try {
      expect(seen).toEqual([`a ${prefix}`]);
      expect(log).toEqual(["outbound a"]);
    } finally {
      await bot.stop();
      const redis = connectRedis();
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  });
});
