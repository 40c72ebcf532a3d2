import type { Redis } from "ioredis";
import { LuaScript } from "./lua.ts";

/** What one check of a limit found. */
export interface RateCheck {
  readonly admitted: boolean;
  /** Messages in the window, this one included when admitted. */
  readonly used: number;
  /** When admitted: 0. When refused: milliseconds until the oldest message leaves the window. */
  readonly resetMs: number;
}

/**
 * A sliding-window log in one ZSET per limit: each admitted message is a
 * member scored by Redis's own clock (TIME), so ingress processes on many
 * machines, with clocks that disagree, count the same window. The check and
 * the count are one script: of any number of concurrent messages exactly as
 * many as the limit allows get in. The key expires one window after the
 * last admitted message, so nothing grows without bound.
 */
const TAKE = LuaScript.file("rate-limit-take-1");

export class RateLimitStore {
  constructor(private readonly redis: Redis) {}

  /**
   * Counts one message against `key` if fewer than `limit` are in the last
   * `windowMs`. `member` must be unique per message (it is what `refund` removes).
   */
  async take(key: string, limit: number, windowMs: number, member: string): Promise<RateCheck> {
    const reply = (await TAKE.run(this.redis, [key], [limit, windowMs, member])) as number[];
    return {
      admitted: Number(reply[0]) === 1,
      used: Number(reply[1]),
      resetMs: Number(reply[2]),
    };
  }

  /** Takes back a message counted by `take`, when a later limit refused it. */
  async refund(key: string, member: string): Promise<void> {
    await this.redis.zrem(key, member);
  }
}
