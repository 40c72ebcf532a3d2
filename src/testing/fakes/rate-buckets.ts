/**
 * Token buckets by key, as the fake platforms hold their rate limits
 * (Telegram's flood control, Slack's method tiers, Discord's route
 * buckets): each key lets `capacity` calls through at once and refills at
 * its rate. A refused call is told how long to wait; a call under the same
 * key before that wait has passed is refused again and recorded as early,
 * so a test or bench can say whether every 429 was honoured.
 */

/** One bucket's shape: how many calls at once, and how many a second it refills. */
export interface BucketShape {
  readonly capacity: number;
  readonly perSecond: number;
}

/** One refusal, or one call that came during the wait a refusal announced. */
export interface RateLimitHit {
  readonly key: string;
  readonly at: number;
  readonly waitMs: number;
}

export class RateBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #waits = new Map<string, number>();
  /** Every refusal, in order. */
  readonly refusals: RateLimitHit[] = [];
  /** Calls made under a key before the wait it was told had passed. */
  readonly early: RateLimitHit[] = [];

  /**
   * Counts a call under each of `keys` (a call may fall under several: its
   * chat and the whole bot). Returns 0 when it may go, taking a token from
   * each, else how long it must wait, in ms, `round`ed up as the platform
   * states waits (Telegram in whole seconds). The first key is the caller's
   * (a chat, a route): it is told to wait, and refused until it has.
   */
  take(
    keys: readonly (readonly [key: string, shape: BucketShape])[],
    now: number,
    round: (ms: number) => number = (ms) => ms,
  ): number {
    const caller = keys[0]?.[0];
    if (caller === undefined) return 0;
    let wait = 0;
    const until = this.#waits.get(caller);
    if (until !== undefined && now < until) {
      this.early.push({ key: caller, at: now, waitMs: until - now });
      wait = until - now;
    }
    for (const [key, shape] of keys) {
      wait = Math.max(wait, this.#bucket(key, shape, now).wait(now));
    }
    if (wait > 0) {
      const told = round(wait);
      this.#waits.set(caller, now + told);
      this.refusals.push({ key: caller, at: now, waitMs: told });
      return told;
    }
    for (const [key, shape] of keys) this.#bucket(key, shape, now).take();
    return 0;
  }

  /** The calls a key has left right now (for headers such as Discord's `x-ratelimit-remaining`). */
  remaining(key: string, shape: BucketShape, now: number): number {
    const bucket = this.#bucket(key, shape, now);
    bucket.wait(now);
    return Math.floor(bucket.tokens);
  }

  #bucket(key: string, shape: BucketShape, now: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new Bucket(shape, now);
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }
}

class Bucket {
  tokens: number;
  #at: number;

  constructor(
    private readonly shape: BucketShape,
    now: number,
  ) {
    this.tokens = shape.capacity;
    this.#at = now;
  }

  /** How long until a call may go (0: now), having refilled to `now`. */
  wait(now: number): number {
    const { capacity, perSecond } = this.shape;
    this.tokens = Math.min(capacity, this.tokens + ((now - this.#at) / 1000) * perSecond);
    this.#at = now;
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) / perSecond) * 1000;
  }

  take(): void {
    this.tokens -= 1;
  }
}
