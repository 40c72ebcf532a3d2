import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/conversation.ts";
import type { DeliveryTarget, MessageControl, NativeStream } from "../ports/outbound.ts";
import type { KeyScheme } from "../store/keys.ts";
import { LuaScript } from "../store/lua.ts";
import { partKey } from "./delivery.ts";
import type { DeliveryEnvironment } from "./delivery-environment.ts";
import { StreamingReply } from "./streaming.ts";

/** What a turn's streamed message was, as far as a crash let it be recorded. */
export interface StreamRecord {
  /** The platform's ref of the message, once its post answered. */
  readonly ref?: string;
  /** The text it last showed, so a turn given up can finish it instead of abandoning it. */
  readonly text?: string;
  /** Set when the message is a native stream (Slack's streaming API): it is finished, not edited. */
  readonly native?: boolean;
  /** When (ms) a native stream was about to start: a run killed before recording its ref left one begun after it. */
  readonly starting?: number;
}

/** A day: longer than any turn's retries. */
const TTL_MS = 86_400_000;

/**
 * Writes fields of the record, giving it its TTL when a field is new (its
 * first write): the text of every draft or edit costs one command.
 */
const NOTE = LuaScript.file("stream-note-1");

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
      ...(stored.native === "1" ? { native: true } : {}),
      ...(stored.starting ? { starting: Number(stored.starting) } : {}),
    };
  }

  /** Records the streamed message's ref; a native stream's before anything more is appended to it. */
  async posted(
    address: ConversationAddress,
    turnId: string,
    ref: string,
    text: string,
    native = false,
  ): Promise<void> {
    const fields = ["ref", ref, "text", text, ...(native ? ["native", "1"] : [])];
    await this.#note(address, turnId, fields);
  }

  /** Records that a native stream is about to start, before its start goes out. */
  async starting(address: ConversationAddress, turnId: string, at: number): Promise<void> {
    await this.#note(address, turnId, ["starting", at]);
  }

  /**
   * Records what the stream shows now (a Telegram draft has no ref, only
   * this). Written after every draft or edit: one script, whose PEXPIRE
   * runs only when the field is new.
   */
  async shown(address: ConversationAddress, turnId: string, text: string): Promise<void> {
    await this.#note(address, turnId, ["text", text]);
  }

  async #note(
    address: ConversationAddress,
    turnId: string,
    fields: readonly (string | number)[],
  ): Promise<void> {
    await NOTE.run(this.redis, [this.#key(address, turnId)], [TTL_MS, ...fields]);
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
  /**
   * Whether a crashed run of this turn already showed the person some of its
   * answer (a message, or a draft, which has no ref): this run's failure
   * must not then move to another model (see `ProviderRequest.answerShown`).
   */
  readonly shown: boolean;
  /**
   * Set when the streamed message is a native stream: ends it showing the
   * answer's first part (or the cut-short partial), instead of an edit.
   */
  readonly finish?:
    | ((text: string, controls?: readonly MessageControl[]) => Promise<void>)
    | undefined;
  /** Stops a native stream as it shows, for a turn that parks on an approval request. */
  readonly pause?: (() => Promise<void>) | undefined;
  /**
   * Set when the answer streams into a draft (Telegram's): it grows where
   * the person reads, so it is itself the sign that the turn is working.
   */
  readonly draft?: boolean;
}

/**
 * Opens the stream of a turn's answer on a channel that edits messages. A
 * resumed turn goes on editing the message its crashed run streamed into, at
 * whatever step it stopped, and its first post looks the key up before
 * posting, for a post that reached the platform unrecorded.
 *
 * Where the platform streams natively ({@link Outbound.native}) the answer
 * streams there instead. Its message's ref is recorded as soon as the stream
 * starts, before anything more is appended; a resumed turn that finds one
 * streams no more into it (what the crashed run appended last is unknown)
 * and its delivery finishes it with the answer: one message either way. A
 * Telegram draft leaves no message: the answer is posted after it, under the
 * part's key, and a resumed turn streams on into the same draft.
 */
export async function openTurnStream(
  env: Pick<DeliveryEnvironment, "inbox" | "store" | "outbounds" | "streamEditMs">,
  address: ConversationAddress,
  turnId: string,
  target: DeliveryTarget,
  resumed: boolean,
  /** The turn's lease; the stream stops once it is lost. */
  signal?: AbortSignal,
  /** The person the answer is for: a Slack stream outside a DM names its recipient. */
  recipient?: string,
): Promise<TurnStream> {
  const streams = new StreamState(env.inbox.redis, env.store.keys);
  let stored: StreamRecord = resumed ? await streams.read(address, turnId) : {};
  const outbound = env.outbounds[address.platform];
  // The streamed message is the answer's first part, under that part's key.
  const key = partKey(turnId, 0);
  const options = { key, ...(recipient ? { recipient } : {}) };
  if (stored.ref === undefined && stored.starting !== undefined) {
    // The crashed run died while its stream was starting: the platform may have begun one.
    const found = await outbound?.native?.find?.(target, stored.starting, options);
    if (found !== undefined) {
      await streams.posted(address, turnId, found, stored.text ?? "", true);
      stored = { ...stored, ref: found, native: true };
    }
  }
  const shown = stored.ref !== undefined || Boolean(stored.text?.trim());
  if (stored.ref !== undefined && stored.native) {
    // A crashed run's native stream: its delivery finishes it with the answer.
    const { ref } = stored;
    const finish = (text: string, controls?: readonly MessageControl[]) =>
      outbound?.native?.finish(target, ref, text, options, controls) ?? Promise.resolve();
    return { streamer: undefined, ref, shown, finish };
  }
  if (!outbound?.canEdit || !env.streamEditMs)
    return { streamer: undefined, ref: stored.ref, shown };
  const native: NativeStream | undefined =
    stored.ref === undefined ? await outbound.native?.open(target, options) : undefined;
  const streamer = new StreamingReply({
    outbound,
    target,
    idempotencyKey: key,
    intervalMs: env.streamEditMs,
    ref: stored.ref,
    mayExist: resumed,
    native,
    ...(native?.kind === "message"
      ? { onStarting: () => streams.starting(address, turnId, Date.now()) }
      : {}),
    onPosted: (ref, text) => streams.posted(address, turnId, ref, text, native !== undefined),
    onShown: (text) => streams.shown(address, turnId, text),
    ...(signal ? { signal } : {}),
  });
  if (native?.kind === "draft") return { streamer, ref: stored.ref, shown, draft: true };
  if (native?.kind !== "message") return { streamer, ref: stored.ref, shown };
  return {
    streamer,
    ref: stored.ref,
    shown,
    finish: (text, controls) => native.finish(text, controls),
    pause: async () => {
      await streamer.close();
      await native.stop();
    },
  };
}
