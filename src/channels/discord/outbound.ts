import type { Client, Message } from "discord.js";
import type { DeliveryTarget, Outbound } from "../outbound.ts";

/** Discord refuses messages over 2,000 characters. */
const MESSAGE_LIMIT = 2_000;

/**
 * The worker's port to Discord over REST (discord.js's @discordjs/rest, which
 * queues and waits out rate limits per route). Replies reference the message
 * they answer; the idempotency key rides as the message's `nonce` with
 * `enforce_nonce`, so Discord itself refuses a second post of the same part.
 */
export class DiscordOutbound implements Outbound {
  readonly maxLength = MESSAGE_LIMIT;
  readonly canEdit = true;

  constructor(private readonly client: Client) {}

  async post(
    target: DeliveryTarget,
    text: string,
    { idempotencyKey }: { idempotencyKey: string; mayExist?: boolean },
  ): Promise<string> {
    const channel = await this.#channel(target.thread ?? target.channel);
    const sent = await channel.send({
      content: text,
      nonce: nonceOf(idempotencyKey),
      enforceNonce: true,
      allowedMentions: { parse: [], repliedUser: false },
      ...(target.replyTo
        ? { reply: { messageReference: target.replyTo, failIfNotExists: false } }
        : {}),
    });
    return sent.id;
  }

  async edit(target: DeliveryTarget, ref: string, text: string): Promise<void> {
    const channel = await this.#channel(target.thread ?? target.channel);
    const message: Message = await channel.messages.fetch(ref);
    await message.edit({ content: text });
  }

  async typing(target: DeliveryTarget): Promise<void> {
    const channel = await this.#channel(target.thread ?? target.channel);
    await channel.sendTyping();
  }

  async #channel(id: string) {
    const channel = this.client.channels.cache.get(id) ?? (await this.client.channels.fetch(id));
    if (!channel?.isSendable() || !("messages" in channel)) {
      throw new Error(`Discord channel ${id} cannot be written to by this bot.`);
    }
    return channel;
  }
}

/** Discord nonces are at most 25 characters: the key's hash, shortened. */
function nonceOf(key: string): string {
  let hash = 0n;
  for (const char of key) hash = (hash * 131n + BigInt(char.codePointAt(0) ?? 0)) % 2n ** 64n;
  return hash.toString(36).slice(0, 25);
}
