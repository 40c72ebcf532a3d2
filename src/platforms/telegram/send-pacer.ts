/**
 * Spaces out one bot's new messages: Telegram takes about thirty a second
 * from a bot, all chats together, and answers more with 429s. When two
 * hundred answers finish at once, their messages queue here and go out at
 * the bot's pace instead of all together, so none waits out a flood and
 * none runs out of retries. A token bucket: `burst` may go at once, then
 * `perSecond`.
 *
 * Two lanes: `post` (answers, files, notices) is served before `stream`
 * (the first message of a streamed preview), so a finished answer never
 * queues behind a preview.
 *
 * @example
 * const pacer = new SendPacer(TELEGRAM_SEND_PACE);
 * await pacer.take("post");
 * await api.sendMessage(chat, text);
 */
export class SendPacer {
  #tokens: number;
  #updated: number;
  readonly #waiting: Record<SendPriority, (() => void)[]> = { post: [], stream: [] };
  #wakeup = false;

  constructor(
    private readonly pace: SendPace,
    private readonly clock: PacerClock = REAL_CLOCK,
  ) {
    this.#tokens = pace.burst;
    this.#updated = clock.now();
  }

  /** Resolves when a message of this priority may be sent. */
  take(priority: SendPriority): Promise<void> {
    return new Promise((resolve) => this.request(priority, resolve));
  }

  /** {@link take} as a callback, called at the moment the send is allowed. */
  request(priority: SendPriority, grant: () => void): void {
    this.#waiting[priority].push(grant);
    this.#pump();
  }

  /** How many sends wait for their turn. */
  get waiting(): number {
    return this.#waiting.post.length + this.#waiting.stream.length;
  }

  #pump(): void {
    // While a wake-up is set the bucket is empty: it grants when the wake-up comes.
    if (this.#wakeup) return;
    const now = this.clock.now();
    this.#tokens = Math.min(
      this.pace.burst,
      this.#tokens + ((now - this.#updated) * this.pace.perSecond) / 1000,
    );
    this.#updated = now;
    while (this.#tokens >= 1) {
      const next = this.#waiting.post.shift() ?? this.#waiting.stream.shift();
      if (!next) return;
      this.#tokens -= 1;
      next();
    }
    if (this.waiting === 0) return;
    this.#wakeup = true;
    const ms = Math.max(1, Math.ceil(((1 - this.#tokens) * 1000) / this.pace.perSecond));
    this.clock.after(ms, () => {
      this.#wakeup = false;
      this.#pump();
    });
  }
}

export type SendPriority = "post" | "stream";

/** A bot's sending pace: `burst` at once, then `perSecond`. */
export interface SendPace {
  readonly perSecond: number;
  readonly burst: number;
}

/**
 * Below Telegram's thirty a second, with a small burst: a message's trip to
 * Telegram varies, and two sent a little apart can arrive together; the
 * margin keeps such a pair inside the limit.
 */
export const TELEGRAM_SEND_PACE: SendPace = { perSecond: 25, burst: 5 };

/** The time, and a timer; a test's virtual clock stands in for them. */
export interface PacerClock {
  now(): number;
  after(ms: number, run: () => void): void;
}

const REAL_CLOCK: PacerClock = {
  now: () => Date.now(),
  after: (ms, run) => {
    setTimeout(run, ms);
  },
};
