import type { LoggerPort } from "../../core/logger.ts";
import {
  type BucketAnswer,
  MemorySendBucket,
  type SendBucket,
  type SendPace,
} from "./send-bucket.ts";

export type { SendPace } from "./send-bucket.ts";

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
 * One bucket for the whole bot, however many processes send for it: after
 * {@link share}, the tokens come from the bot's bucket in Redis
 * (send-bucket.ts), so two workers together keep the pace one would, not
 * twice it. How a process draws from it:
 *
 * - It books sends for the messages it has waiting (up to the burst),
 *   one request at a time: that booking is the lease. It reaches at most
 *   `burst / perSecond` ahead (200 ms at Telegram's free pace), and each
 *   booked send comes with its delay, the moment the bucket's refill has
 *   paid for it. So one round trip books several sends, spread out at the
 *   pace, and the process asks again when as many more could be booked: a
 *   process sending steadily makes about one trip per `burst` messages (a
 *   fifth of a trip a message at the free pace; measured 0.20 alone, 0.58
 *   with two processes asking at the same moments), and a message alone
 *   pays one round trip, well under a millisecond beside Telegram's hundred.
 *   A process that dies leaves its bookings unspent: the bot sends less for
 *   at most a lease, never more.
 * - A booked send goes at its delay, to whichever message is first then
 *   (a finished answer before a preview), and never earlier. Since every
 *   send goes when a plain token bucket would have let it, the bot sends at
 *   most `burst + perSecond * t` in any `t`, all processes together (give or
 *   take how much the replies' trips differ, which the pace's margin under
 *   Telegram's limit absorbs). No process keeps tokens to spend when it
 *   likes: a token kept and spent after the others had refilled the bucket
 *   would let the bot go past its burst, the one thing the bucket is for.
 * - When Redis does not answer (not connected, an error, no reply within
 *   {@link SHARED_TIMEOUT_MS}), the process paces on its own bucket in
 *   memory, at the bot's full pace, and says so once; it tries Redis again
 *   after {@link LOCAL_SPELL_MS}. Nothing waiting is dropped: the messages
 *   of the failed request are served from the memory bucket. Should several
 *   processes go past the bot's limit meanwhile, the flood gate waits out
 *   Telegram's 429s (flood-gate.ts).
 *
 * @example
 * const pacer = new SendPacer(TELEGRAM_SEND_PACE);
 * pacer.share(new RedisSendBucket(redis, keys.sendBucket("telegram", botId, "messages")), logger);
 * await pacer.take("post");
 * await api.sendMessage(chat, text);
 */
export class SendPacer {
  readonly #waiting: Record<SendPriority, (() => void)[]> = { post: [], stream: [] };
  readonly #own: MemorySendBucket;
  #shared: SendBucket | undefined;
  #logger: LoggerPort | undefined;
  /** Until when this process paces on its own because Redis did not answer; 0: not. */
  #localUntil = 0;
  #outage = false;
  /** A request is on its way to the bucket, or a wake-up is set for when more can be booked. */
  #busy = false;
  /** Sends booked and not yet due: that many of the waiting messages have a send coming. */
  #booked = 0;

  constructor(
    private readonly pace: SendPace,
    private readonly clock: PacerClock = REAL_CLOCK,
  ) {
    this.#own = new MemorySendBucket(() => clock.now());
  }

  /** Draws from `bucket`, shared with the bot's other processes, from now on; `logger` hears when Redis is away. */
  share(bucket: SendBucket, logger?: LoggerPort): void {
    this.#shared = bucket;
    this.#logger = logger;
    this.#localUntil = 0;
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

  /** About how long a message asking now would wait: the sends before it, at the pace (ms). */
  get waitMs(): number {
    return (this.waiting * 1_000) / this.pace.perSecond;
  }

  #pump(): void {
    if (this.#busy) return;
    const want = Math.min(this.waiting - this.#booked, Math.max(1, Math.floor(this.pace.burst)));
    if (want <= 0) return;
    const shared = this.#shared && this.clock.now() >= this.#localUntil ? this.#shared : undefined;
    if (!shared) {
      this.#grant(this.#own.take(want, this.pace));
      return;
    }
    this.#busy = true;
    let answer: BucketAnswer | Promise<BucketAnswer>;
    try {
      answer = shared.take(want, this.pace);
    } catch (error) {
      answer = Promise.reject(error);
    }
    withTimeout(Promise.resolve(answer), SHARED_TIMEOUT_MS, this.clock).then(
      (booked) => {
        this.#busy = false;
        if (this.#outage) {
          this.#outage = false;
          this.#logger?.warn("Redis answers again: the bot's new messages keep one shared pace");
        }
        // The process's own bucket counts what it sent, so a fall back to it starts from there.
        this.#own.spend(booked.delaysMs.length, this.pace);
        this.#grant(booked);
      },
      (error: unknown) => {
        this.#busy = false;
        this.#fallBack(error);
        this.#pump();
      },
    );
  }

  #grant({ delaysMs, waitMs }: BucketAnswer): void {
    for (const delay of delaysMs) {
      if (delay <= 0) {
        this.#release();
        continue;
      }
      this.#booked++;
      this.clock.after(delay, () => {
        this.#booked--;
        this.#release();
      });
    }
    // A send may have asked again (a message sent, then its next part): that request is under way.
    if (this.#busy || this.waiting - this.#booked <= 0) return;
    // All that was asked for was booked; these arrived meanwhile, and ask now.
    if (waitMs === 0) {
      this.#pump();
      return;
    }
    this.#busy = true;
    this.clock.after(Math.max(1, waitMs), () => {
      this.#busy = false;
      this.#pump();
    });
  }

  /** A booked send is due: the first message waiting goes, a finished answer before a preview. */
  #release(): void {
    const next = this.#waiting.post.shift() ?? this.#waiting.stream.shift();
    next?.();
  }

  #fallBack(error: unknown): void {
    this.#localUntil = this.clock.now() + LOCAL_SPELL_MS;
    if (this.#outage) return;
    this.#outage = true;
    this.#logger?.warn(
      "the bot's shared send pace in Redis did not answer; this process paces the bot's new messages on its own until Redis is back (several processes together may meet Telegram's 429s, which are waited out)",
      { error: error instanceof Error ? error.message : String(error) },
    );
  }
}

export type SendPriority = "post" | "stream";

/** How long a process waits for the shared bucket before it paces on its own. */
export const SHARED_TIMEOUT_MS = 1_000;

/** How long a process paces on its own after the shared bucket failed, before it asks Redis again. */
export const LOCAL_SPELL_MS = 5_000;

/**
 * Below Telegram's thirty a second, with a small burst: a message's trip to
 * Telegram varies, and two sent a little apart can arrive together; the
 * margin keeps such a pair inside the limit.
 */
export const TELEGRAM_SEND_PACE: SendPace = { perSecond: 25, burst: 5 };

/**
 * The pace of a bot that pays for its broadcasts (`telegram.paid_broadcast`):
 * Telegram then takes up to 1,000 messages a second from it. As with
 * {@link TELEGRAM_SEND_PACE}, the burst and the pace add up to the limit, so
 * no second ever holds more than 1,000 (a token bucket lets `burst +
 * perSecond * t` through in any `t`), with the pace a tenth under it for the
 * trips' spread. A burst of 100, not less: a process books at most a burst
 * per trip to the shared bucket, and with 30 a worker whose event loop was
 * busy (600 answers finishing together) booked slower than the pace, and
 * its answers waited up to 1.3 s (issue 36).
 */
export const PAID_BROADCAST_PACE: SendPace = { perSecond: 900, burst: 100 };

/** The time, and a timer; a test's virtual clock stands in for them. */
export interface PacerClock {
  now(): number;
  /** Runs `run` after `ms`; may return a function that cancels it. */
  after(ms: number, run: () => void): unknown;
}

const REAL_CLOCK: PacerClock = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

/** `answer`, or a rejection once `ms` have passed without it; a late answer's tokens go unspent. */
function withTimeout<T>(answer: Promise<T>, ms: number, clock: PacerClock): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const cancel = clock.after(ms, () => {
      if (settled) return;
      settled = true;
      reject(new Error(`no answer in ${ms} ms`));
    });
    const settle = () => {
      settled = true;
      if (typeof cancel === "function") cancel();
    };
    answer.then(
      (value) => {
        if (settled) return;
        settle();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settle();
        reject(error);
      },
    );
  });
}
