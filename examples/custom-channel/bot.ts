import { randomUUID } from "node:crypto";
import {
  type Channel,
  type ChannelRuntime,
  createBot,
  type DeliveryTarget,
  type Outbound,
} from "switchyard";

/**
 * A platform of our own, written against Switchyard's Channel contract:
 * `ask` is a person typing in a conversation, and resolves with the bot's
 * answer when the worker posts it through `outbound`.
 */
class MemoryChannel implements Channel {
  readonly platform = "memory";
  readonly #waiting = new Map<string, (answer: string) => void>();
  #runtime: ChannelRuntime | undefined;
  #posted = 0;

  readonly outbound: Outbound = {
    maxLength: 4_000,
    canEdit: false,
    post: async (target: DeliveryTarget, text: string) => {
      this.#waiting.get(target.conversation)?.(text);
      this.#waiting.delete(target.conversation);
      this.#posted += 1;
      return String(this.#posted);
    },
    edit: async () => {},
    typing: async () => {},
  };

  async start(runtime: ChannelRuntime): Promise<void> {
    this.#runtime = runtime;
  }

  async stop(): Promise<void> {
    this.#runtime = undefined;
  }

  ask(conversation: string, text: string): Promise<string> {
    const runtime = this.#runtime;
    if (runtime === undefined) return Promise.reject(new Error("Start the bot first."));
    const answer = new Promise<string>((resolve) => this.#waiting.set(conversation, resolve));
    const message = {
      platform: this.platform,
      workspace: "demo",
      channel: "general",
      conversation,
      user: "visitor",
      text,
      attachments: [],
      eventId: randomUUID(),
      time: Date.now(),
    };
    return runtime.queue.enqueue(message).then(() => answer);
  }
}

const memory = new MemoryChannel();
const bot = createBot({ channels: [memory], builtins: [] });
await bot.start();
console.log(await memory.ask("visitor-1", "Hello! Who are you?"));
await bot.stop();
