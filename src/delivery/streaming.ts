import { clip } from "../core/delivery/split.ts";
import type { DeliveryTarget, NativeStream, Outbound } from "../ports/outbound.ts";
import { targetGoneOf } from "../ports/target-gone.ts";

export interface StreamingReplyOptions {
  readonly outbound: Outbound;
  readonly target: DeliveryTarget;
  /** The key of the answer's first part: the streamed message becomes that part. */
  readonly idempotencyKey: string;
  /** At most one post or edit this often (ms). */
  readonly intervalMs: number;
  /**
   * The platform's own stream for this answer: text is appended to it
   * instead of posted and edited (see {@link NativeStream}).
   */
  readonly native?: NativeStream | undefined;
  /** Called before a native stream's first append goes out (it may start a message). */
  readonly onStarting?: (() => Promise<void>) | undefined;
  /** The message a crashed run of this turn already streamed into: edit it, post nothing. */
  readonly ref?: string | undefined;
  /**
   * Set for a resumed turn whose crashed run may have posted without
   * recording the ref: the first post looks its key up before posting.
   */
  readonly mayExist?: boolean;
  /**
   * Called once with the message's ref and first text, so a resumed turn edits
   * it instead of posting anew; for a native stream, before anything more is appended.
   */
  readonly onPosted: (ref: string, text: string) => Promise<void>;
  /** Called after each edit that landed, with the text it shows. */
  readonly onShown?: (text: string) => Promise<void>;
  /**
   * The turn's lease: once it is lost, nothing more is posted or edited. The
   * run that took the turn over shows the answer, and a late edit of this
   * run's partial must not land over its final one.
   */
  readonly signal?: AbortSignal;
  readonly now?: () => number;
}

/**
 * Shows an answer as it streams in: the first text is posted, later text
 * edits that message, at most once per `intervalMs` (platforms rate-limit
 * edits: Slack about one a second per message, Telegram one a second per
 * chat). The newest text always wins; nothing is sent for text that was
 * overtaken while waiting. With a native stream (Slack's streaming API, a
 * Telegram draft) the same text is appended to the stream instead, at the
 * same pace, or later where the stream holds a send for its turn
 * ({@link NativeStream.ready}): the text is read when the turn comes. The final answer is not this class's job: the turn's delivery
 * edits the same message with it, or finishes the stream.
 */
export class StreamingReply {
  #ref: string | undefined;
  #latest = "";
  #shown = "";
  #lastSent = 0;
  #timer: NodeJS.Timeout | undefined;
  /** A send due now, run once the chunks of this tick are in. */
  #tick: NodeJS.Immediate | undefined;
  #inFlight: Promise<void> = Promise.resolve();
  /** A send is on its way that has not read the text yet: it will show the newest. */
  #queued = false;
  /** Aborted at close: a native stream's wait for its turn is given up (the answer follows). */
  readonly #closing = new AbortController();
  #closed = false;
  #starting = false;
  /** Set once the platform said the conversation is gone for the bot: nothing more is tried. */
  #gone = false;
  readonly #o: StreamingReplyOptions;
  readonly #now: () => number;

  constructor(options: StreamingReplyOptions) {
    this.#o = options;
    this.#ref = options.ref;
    this.#now = options.now ?? Date.now;
  }

  /** The ref of the streamed message, once posted. */
  get ref(): string | undefined {
    return this.#ref;
  }

  /**
   * The answer so far, called for every chunk the model streams. It only
   * keeps the text: a send due now waits for the end of the tick (one read
   * from the network holds many chunks), a later one for its timer, and
   * either shows the newest text then.
   */
  update(text: string): void {
    if (this.#closed || this.#o.signal?.aborted || !VISIBLE.test(text)) return;
    this.#latest = text;
    if (this.#timer || this.#tick || this.#queued) return;
    const wait = this.#lastSent + this.#o.intervalMs - this.#now();
    if (wait <= 0) {
      this.#tick = setImmediate(() => {
        this.#tick = undefined;
        this.#send();
      });
    } else this.#timer = setTimeout(() => this.#send(), wait);
  }

  /**
   * Shows the newest text now, whatever the interval: a turn that parks on
   * an approval request leaves its message showing all it streamed, not the
   * last throttled edit.
   */
  async flush(): Promise<void> {
    this.#cancelPending();
    if (!this.#closed) this.#send();
    await this.#inFlight;
  }

  /** Stops editing and waits for what is in flight; returns the ref, if anything was posted. */
  async close(): Promise<string | undefined> {
    this.#closed = true;
    // A send that was due goes as it would have: the first post still lands.
    if (this.#cancelPending()) this.#send();
    // A native stream's draft still waiting for its turn is not wanted: the answer follows.
    this.#closing.abort();
    await this.#inFlight;
    // Unless the answer's message must wait its turn: the whole text shows at once meanwhile.
    if (!this.#gone && this.#o.native?.showLast?.()) {
      this.#send(true);
      await this.#inFlight;
    }
    return this.#ref;
  }

  /** Cancels the timer and the send due this tick; returns whether a send was due. */
  #cancelPending(): boolean {
    const due = this.#tick !== undefined;
    clearTimeout(this.#timer);
    clearImmediate(this.#tick);
    this.#timer = undefined;
    this.#tick = undefined;
    return due;
  }

  /** Sends the newest text once its turn comes; `now`, without waiting for one. */
  #send(now = false): void {
    this.#timer = undefined;
    this.#queued = true;
    this.#inFlight = this.#inFlight.then(async () => {
      // The platform's pace first, the text after: what is sent is the newest when its turn comes.
      const native = this.#o.native;
      const go =
        now || !native?.ready ? true : await native.ready(this.#closing.signal).catch(() => false);
      this.#queued = false;
      if (!go) return;
      if (this.#closed && this.#ref !== undefined) return;
      if (this.#o.signal?.aborted || this.#gone) return;
      // Clipped here, once per send, rather than for every chunk.
      const max = this.#o.outbound.maxLength;
      const text = this.#latest.length > max ? `${clip(this.#latest, max - 1)}…` : this.#latest;
      if (text === this.#shown) return;
      this.#lastSent = this.#now();
      const { outbound, target } = this.#o;
      try {
        if (native) {
          if (this.#ref === undefined && !this.#starting) {
            this.#starting = true;
            await this.#o.onStarting?.();
          }
          const ref = await native.append(text);
          if (ref !== undefined && this.#ref === undefined) {
            this.#ref = ref;
            await this.#o.onPosted(ref, text);
          } else await this.#o.onShown?.(text);
        } else if (this.#ref === undefined) {
          this.#ref = await outbound.post(target, text, {
            idempotencyKey: this.#o.idempotencyKey,
            mayExist: this.#o.mayExist ?? false,
            preview: true,
          });
          await this.#o.onPosted(this.#ref, text);
        } else {
          await outbound.edit(target, this.#ref, text);
          await this.#o.onShown?.(text);
        }
        this.#shown = text;
      } catch (error) {
        // A failed live edit costs only freshness; the final delivery still happens.
        // Into a gone conversation it would fail every time: the stream stops trying.
        if (targetGoneOf(error)) this.#gone = true;
      }
    });
  }
}

/** Text with something to show: whitespace alone is not posted. */
const VISIBLE = /\S/;
