import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import type { KeyScheme } from "../store/keys.ts";

/** What a turn's streamed message was, as far as a crash let it be recorded. */
export interface StreamRecord {
  /** The platform's ref of the message, once its post answered. */
  readonly ref?: string;
  /** The text it last showed, so a turn given up can finish it instead of abandoning it. */
  readonly text?: string;
}

/** A day: longer than any turn's retries. */
const TTL_MS = 86_400_000;

/**
 * Where a turn's streamed message is remembered, next to the conversation's
 * other keys (one hash slot): its ref as soon as the post answers, and the
 * text of each edit. A turn resumed after a crash edits that message instead
 * of posting a second one; one given up finishes it with a note.
 */
export class StreamState {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  async read(address: ConversationAddress, turnId: string): Promise<StreamRecord> {
    const stored = await this.redis.hgetall(this.#key(address, turnId));
    return {
      ...(stored.ref ? { ref: stored.ref } : {}),
      ...(stored.text !== undefined ? { text: stored.text } : {}),
    };
  }

  async posted(address: ConversationAddress, turnId: string, ref: string, text: string) {
    const key = this.#key(address, turnId);
    await this.redis.multi().hset(key, { ref, text }).pexpire(key, TTL_MS).exec();
  }

  async shown(address: ConversationAddress, turnId: string, text: string): Promise<void> {
    await this.redis.hset(this.#key(address, turnId), "text", text);
  }

  #key(address: ConversationAddress, turnId: string): string {
    return `${this.keys.conversationTag(address)}:stream:${turnId}`;
  }
}
