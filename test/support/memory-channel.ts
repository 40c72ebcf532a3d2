import { randomUUID } from "node:crypto";
import type { Channel, ChannelRuntime } from "../../src/ingress/channel.ts";
import type { DeliveryTarget, Outbound } from "../../src/ports/outbound.ts";

export interface MemoryPost {
  readonly channel: string;
  readonly conversation: string;
  readonly text: string;
}

/**
 * A platform that lives in the test: `say` puts a message on the queue as
 * a person in `channel` would, and every answer lands in `posts`. It skips
 * the access gate and commands on purpose (`ungatedQueue`), to test what a
 * worker does with a message; test/contract/memory-channel.ts is the
 * platform a bot author would write.
 */
export class MemoryChannel implements Channel {
  readonly platform = "memory";
  readonly posts: MemoryPost[] = [];
  #runtime: ChannelRuntime | undefined;
  readonly outbound: Outbound = {
    maxLength: 10_000,
    canEdit: false,
    post: async (target: DeliveryTarget, text: string) => {
      this.posts.push({ channel: target.channel, conversation: target.conversation, text });
      return String(this.posts.length);
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

  async say(channel: string, text: string): Promise<void> {
    if (!this.#runtime) throw new Error("start the bot before saying anything");
    await this.#runtime.ungatedQueue.enqueue({
      platform: this.platform,
      workspace: "team",
      channel,
      conversation: channel,
      user: "alice",
      text,
      attachments: [],
      eventId: randomUUID(),
      time: Date.now(),
    });
  }
}
