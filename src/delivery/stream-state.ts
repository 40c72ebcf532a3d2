import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/conversation.ts";
import type { DeliveryTarget } from "../ports/outbound.ts";
import type { KeyScheme } from "../store/keys.ts";
import { partKey } from "./delivery.ts";
import type { DeliveryEnvironment } from "./delivery-environment.ts";
import { StreamingReply } from "./streaming.ts";

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
    return this.keys.turnStream(address, turnId);
  }
}

/** A turn's live stream, if its channel streams: the reply to feed, and the message it may already have. */
export interface TurnStream {
  readonly streamer: StreamingReply | undefined;
  /** The streamed message a crashed run of this turn left, if its post was recorded. */
  readonly ref: string | undefined;
}

/**
 * Opens the stream of a turn's answer on a channel that edits messages. A
 * resumed turn goes on editing the message its crashed run streamed into, at
 * whatever step it stopped, and its first post looks the key up before
 * posting, for a post that reached the platform unrecorded.
 */
export async function openTurnStream(
  env: Pick<DeliveryEnvironment, "inbox" | "store" | "outbounds" | "streamEditMs">,
  address: ConversationAddress,
  turnId: string,
  target: DeliveryTarget,
  resumed: boolean,
  /** The turn's lease; the stream stops once it is lost. */
  signal?: AbortSignal,
): Promise<TurnStream> {
  const streams = new StreamState(env.inbox.redis, env.store.keys);
  const stored = resumed ? await streams.read(address, turnId) : {};
  const outbound = env.outbounds[address.platform];
  if (!outbound?.canEdit || !env.streamEditMs) return { streamer: undefined, ref: stored.ref };
  const streamer = new StreamingReply({
    outbound,
    target,
    // The streamed message is the answer's first part, under that part's key.
    idempotencyKey: partKey(turnId, 0),
    intervalMs: env.streamEditMs,
    ref: stored.ref,
    mayExist: resumed,
    onPosted: (ref, text) => streams.posted(address, turnId, ref, text),
    onShown: (text) => streams.shown(address, turnId, text),
    ...(signal ? { signal } : {}),
  });
  return { streamer, ref: stored.ref };
}
