import type { Redis } from "ioredis";
import { LuaScript } from "../../store/lua.ts";

/**
 * Where a bot's send tokens come from: a token bucket that lets `burst`
 * messages go at once, then `perSecond`. {@link MemorySendBucket} is one
 * process's own; {@link RedisSendBucket} is shared by every process that
 * sends for the bot, so together they keep the bot's pace. A memory bucket
 * answers at once, Redis after a round trip, so an answer may be a promise.
 */
export interface SendBucket {
  /**
   * Takes up to `want` tokens; the tokens granted must be spent now. When
   * fewer than `want` were granted, `waitMs` says when the next one is due.
   */
  take(want: number, pace: SendPace): BucketAnswer | Promise<BucketAnswer>;
}

export interface BucketAnswer {
  readonly granted: number;
  /** Ms until the next token, when fewer were granted than wanted; else 0. */
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
  #tokens: number | undefined;
  #at = 0;

  constructor(private readonly now: () => number = Date.now) {}

  take(want: number, pace: SendPace): BucketAnswer {
    let tokens = this.#refill(pace);
    const granted = Math.max(0, Math.min(want, Math.floor(tokens)));
    tokens -= granted;
    this.#tokens = tokens;
    const waitMs =
      granted < want ? Math.max(1, Math.ceil(((1 - tokens) * 1000) / pace.perSecond)) : 0;
    return { granted, waitMs };
  }

  /**
   * Counts `sent` messages that went on tokens from elsewhere (the shared
   * bucket), below zero if need be: a process that falls back to this
   * bucket then waits for what it has just sent to refill, as the shared one would.
   */
  spend(sent: number, pace: SendPace): void {
    if (sent <= 0) return;
    this.#tokens = Math.max(-pace.burst, this.#refill(pace) - sent);
  }

  #refill(pace: SendPace): number {
    const now = this.now();
    const elapsed = this.#tokens === undefined ? 0 : Math.max(0, now - this.#at);
    this.#at = Math.max(this.#at, now);
    return Math.min(pace.burst, (this.#tokens ?? pace.burst) + (elapsed * pace.perSecond) / 1000);
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
    const [granted, waitMs] = Array.isArray(reply) ? reply.map(Number) : [];
    return { granted: granted ?? 0, waitMs: waitMs ?? 0 };
  }
}
