import type { Redis } from "ioredis";
import { LuaScript } from "../../store/lua.ts";

/**
 * Where a bot's sends are booked: a token bucket that lets `burst`
 * messages go at once, then `perSecond`. {@link MemorySendBucket} is one
 * process's own; {@link RedisSendBucket} is shared by every process that
 * sends for the bot, so together they keep the bot's pace. A memory bucket
 * answers at once, Redis after a round trip, so an answer may be a promise.
 *
 * A booking may run up to `burst / perSecond` seconds ahead: each booked
 * send comes with its delay, the first whole millisecond at which a plain
 * token bucket would let it go (the sends booked before it counted), so the
 * bot never sends more than `burst + perSecond * t` in any `t`, and one call
 * books several.
 */
export interface SendBucket {
  /** Books up to `want` sends; each must go at its delay, not before. */
  take(want: number, pace: SendPace): BucketAnswer | Promise<BucketAnswer>;
}

export interface BucketAnswer {
  /** Each booked send's delay from now, in ms, in order. */
  readonly delaysMs: readonly number[];
  /**
   * Ms until as many more could be booked as are still wanted (when all
   * were, as many again): when a process with more waiting asks next. 0: now.
   */
  readonly waitMs: number;
}

/** A bot's sending pace: `burst` at once, then `perSecond`. */
export interface SendPace {
  readonly perSecond: number;
  readonly burst: number;
}

/**
 * One process's bucket, in memory: the pace of a process that sends alone,
 * and of any process while Redis is away. The same arithmetic as
 * send-bucket-take-1.lua, on the process's clock.
 */
export class MemorySendBucket implements SendBucket {
  /** The level at {@link #at}: now, or the due time of the last send booked. */
  #tokens: number | undefined;
  #at = 0;

  constructor(private readonly now: () => number = Date.now) {}

  take(want: number, pace: SendPace): BucketAnswer {
    const now = this.#refill(pace);
    const horizon = now + Math.ceil((pace.burst * 1000) / pace.perSecond);
    const delaysMs: number[] = [];
    while (delaysMs.length < want) {
      const [due, level] = this.#nextDue(pace);
      if (due > horizon) break;
      this.#tokens = level - 1;
      this.#at = due;
      delaysMs.push(due - now);
    }
    // When as many more could be booked as are still wanted (all booked: as many again).
    const need = want - delaysMs.length || want;
    const [due] = this.#nextDue(pace);
    const wait = Math.max(0, Math.ceil(due + ((need - 1) * 1000) / pace.perSecond - horizon));
    return { delaysMs, waitMs: delaysMs.length < want ? Math.max(1, wait) : wait };
  }

  /**
   * Counts `sent` sends booked elsewhere (in the shared bucket): a process
   * that falls back to this bucket then waits for what it has just sent to
   * refill, as the shared one would.
   */
  spend(sent: number, pace: SendPace): void {
    if (sent <= 0) return;
    this.#refill(pace);
    this.#tokens = Math.max(-pace.burst, (this.#tokens ?? pace.burst) - sent);
  }

  /** Brings the level up to now, unless sends are booked past now; returns now. */
  #refill(pace: SendPace): number {
    const now = this.now();
    if (this.#tokens === undefined) {
      this.#tokens = pace.burst;
      this.#at = now;
    } else if (now > this.#at) {
      const refill = ((now - this.#at) * pace.perSecond) / 1000;
      this.#tokens = Math.min(pace.burst, this.#tokens + refill);
      this.#at = now;
    }
    return now;
  }

  /** When the next send is due after the last one booked, and the level just before it. */
  #nextDue(pace: SendPace): [due: number, level: number] {
    const tokens = this.#tokens ?? pace.burst;
    if (tokens >= 1) return [this.#at, tokens];
    const due = this.#at + Math.ceil(((1 - tokens) * 1000) / pace.perSecond);
    return [due, Math.min(pace.burst, tokens + ((due - this.#at) * pace.perSecond) / 1000)];
  }
}

const TAKE = LuaScript.file("send-bucket-take-1");

/** The connection was lost (or closed): a first connect, still under way, is worth its short wait. */
const OFFLINE: ReadonlySet<string> = new Set(["reconnecting", "close", "end"]);

/** Redis is not connected: the pacer falls back to its own bucket at once, instead of queueing behind the reconnect. */
export class SendBucketOfflineError extends Error {
  override readonly name = "SendBucketOfflineError";
}

/**
 * A bot's bucket in Redis, one key (`KeyScheme.sendBucket`), taken by a Lua
 * script on Redis's clock: every process sending for the bot, on any
 * machine, draws from it, so the bot keeps one pace however many workers
 * it has.
 */
export class RedisSendBucket implements SendBucket {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async take(want: number, pace: SendPace): Promise<BucketAnswer> {
    // ioredis queues commands while it reconnects; a message must not wait for that.
    if (OFFLINE.has(this.redis.status)) {
      throw new SendBucketOfflineError(`Redis is ${this.redis.status}`);
    }
    const reply = await TAKE.run(this.redis, [this.key], [pace.perSecond, pace.burst, want]);
    const [waitMs = 0, ...delaysMs] = Array.isArray(reply) ? reply.map(Number) : [];
    return { delaysMs, waitMs };
  }
}
