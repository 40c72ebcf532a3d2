import { type BotRole, createBot, createLogger, createOpenAIProvider } from "../../src/index.ts";
import { startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { bigTool, lookupTool } from "../support/pipeline.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";
import { channelContract, type DriverSetup } from "./channel-contract.ts";
import { MemoryChat, memoryChannel } from "./memory-channel.ts";

const ROOM = "general";
const MEMBER = "alice";

/**
 * The fourth platform as a bot author runs it: `createBot` from the public
 * API with the memory channel, on the shared Redis and the fake model. Split,
 * one bot takes the chat's events (`ingress`) and another runs the turns
 * (`worker`), which builds the channel for its outbound and never starts it.
 */
function memoryBot(roles: readonly BotRole[]) {
  return async ({ streamEditMs }: DriverSetup) => {
    const model = await startFakeOpenAI();
    const prefix = uniquePrefix("contract-memory");
    const chat = new MemoryChat({ admins: ["ada"] });
    const bots = roles.map((role) =>
      createBot({
        role,
        channels: [memoryChannel({ chat, maxLength: 1_000 })],
        tools: [lookupTool, bigTool],
        builtins: [],
        provider: createOpenAIProvider({ apiKey: "test", baseURL: model.url, model: "fake-model" }),
        env: { ...redisEnv() },
        prefix,
        queue: { debounceMs: 0 },
        streamEditMs,
        logger: createLogger({ level: "silent" }),
        processGuard: false,
      }),
    );
    for (const bot of bots) await bot.start();
    return {
      model,
      maxLength: bots[0]?.channels[0]?.outbound.maxLength ?? 0,
      send: async (text: string) => {
        const event = await chat.say(MEMBER, ROOM, text);
        return () => chat.redeliver(event);
      },
      said: () => chat.botMessages(ROOM).map((m) => m.text),
      edits: () => chat.botMessages(ROOM).reduce((sum, m) => sum + m.edits, 0),
      async close() {
        for (const bot of bots) await bot.stop();
        await model.close();
        const redis = connectRedis();
        await deleteKeysUnder(redis, prefix);
        redis.disconnect();
      },
    };
  };
}

channelContract(
  "an in-memory fourth platform, written against src/index.ts alone",
  memoryBot(["all"]),
);
channelContract(
  "the in-memory platform split into an ingress bot and a worker bot",
  memoryBot(["ingress", "worker"]),
);
