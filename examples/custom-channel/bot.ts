import { createBot, parseConfig } from "switchyard";
import { MemoryChat, memoryChatChannel } from "./memory-chat.js";

// A platform of our own (memory-chat.ts) beside nothing else. Ada owns the
// bot: she is answered, and she lets strangers in with /access approve CODE.
// Anyone else writing in a direct message gets a pairing code, not the model.
const chat = new MemoryChat();
const bot = createBot({
  channels: [memoryChatChannel({ chat })],
  builtins: [],
  config: parseConfig("permissions:\n  owners: [memory:ada]\n", "bot.ts"),
});

await bot.start();
console.log(`ada: ${await chat.ask("ada", "Hello! Who are you?")}`);
console.log(`stranger: ${await chat.ask("stranger", "Hello! Who are you?")}`);
await bot.stop();
