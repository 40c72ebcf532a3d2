import type { DeliveryTarget, Outbound } from "../channels/outbound.ts";

/**
 * Shows an answer as it streams in: the first text is posted, later text
 * edits that message, at most once per `intervalMs` (platforms rate-limit
 * edits: Slack about one a second per message, Telegram one a second per
 * chat). The newest text always wins; nothing is sent for text that was
 * overtaken while waiting. The final answer is not this class's job: the
 * turn's delivery edits the same message with it.
 */
export class StreamingReply {
  #ref: string | undefined;
  #latest = "";
  #shown = "";
  #lastSent = 0;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly outbound: Outbound,
    private readonly target: DeliveryTarget,
    private readonly idempotencyKey: string,
    private readonly intervalMs: number,
    /** Called once with the message's ref, so a resumed turn edits it instead of posting anew. */
    private readonly onPosted: (ref: string) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The ref of the streamed message, once posted. */
  get ref(): string | undefined {
    return this.#ref;
  }

  update(text: string): void {
    if (this.#closed || text.trim() === "") return;
    this.#latest =
      text.length > this.outbound.maxLength
        ? `${text.slice(0, this.outbound.maxLength - 1)}…`
        : text;
    if (this.#timer) return;
    const wait = this.#lastSent + this.intervalMs - this.now();
    if (wait <= 0) this.#send();
    else this.#timer = setTimeout(() => this.#send(), wait);
  }

  /** Stops editing and waits for what is in flight; returns the ref, if anything was posted. */
  async close(): Promise<string | undefined> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
    return this.#ref;
  }

  #send(): void {
    this.#timer = undefined;
    this.#inFlight = this.#inFlight.then(async () => {
      if (this.#closed && this.#ref !== undefined) return;
      const text = this.#latest;
      if (text === this.#shown) return;
      this.#lastSent = this.now();
      try {
        if (this.#ref === undefined) {
          this.#ref = await this.outbound.post(this.target, text, {
            idempotencyKey: this.idempotencyKey,
          });
          await this.onPosted(this.#ref);
        } else {
          await this.outbound.edit(this.target, this.#ref, text);
        }
        this.#shown = text;
      } catch {
        // A failed live edit costs only freshness; the final delivery still happens.
      }
    });
  }
}
