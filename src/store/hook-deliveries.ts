import type { Redis } from "ioredis";
import type { KeyScheme } from "./keys.ts";

/**
 * The deliveries each hook has taken, so a call sent again is refused
 * rather than answered twice. A claim is a key set only if absent, with a
 * TTL: longer than the window a signed timestamp is good for, so a replay
 * within it is caught; for schemes that sign no time, a week.
 *
 * @example
 * const taken = await deliveries.claim("ci-failed", "812", undefined, 10 * 60_000);
 * if (!taken) return answer(409, "delivery 812 was already taken");
 */
export class HookDeliveries {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  /**
   * Takes the delivery (and the body, by its digest, when given) for the
   * hook: true when neither was taken before. On false nothing stays taken
   * by this call.
   */
  async claim(
    name: string,
    delivery: string,
    digest: string | undefined,
    ttlMs: number,
  ): Promise<boolean> {
    const keys = this.#keysOf(name, delivery, digest);
    const taken: string[] = [];
    for (const key of keys) {
      // One key each, in one slot: a second call with the same id or body finds it set.
      if ((await this.redis.set(key, "1", "PX", ttlMs, "NX")) !== "OK") {
        if (taken.length > 0) await this.redis.del(...taken);
        return false;
      }
      taken.push(key);
    }
    return true;
  }

  /** Gives a claim back, when the call was not queued after all (a refusal, Redis away): the sender may retry. */
  async release(name: string, delivery: string, digest: string | undefined): Promise<void> {
    await this.redis.del(...this.#keysOf(name, delivery, digest));
  }

  #keysOf(name: string, delivery: string, digest: string | undefined): string[] {
    const hooks = this.keys.hooks();
    return [hooks.delivery(name, delivery), ...(digest ? [hooks.body(name, digest)] : [])];
  }
}
