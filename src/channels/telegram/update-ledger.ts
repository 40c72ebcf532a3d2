import type { Context } from "grammy";
import type { Redis } from "ioredis";
import { LuaScript } from "../../store/lua.ts";

// KEYS: the update's key. ARGV: ttl of a claim. Returns "fresh" for a new claim, else the state.
const CLAIM = new LuaScript(`
local state = redis.call('GET', KEYS[1])
if state then return state end
redis.call('SET', KEYS[1], 'taking', 'PX', ARGV[1])
return 'fresh'
`);

// KEYS: the update's key. Lets go of a claim that did not finish, so a redelivery is taken.
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == 'taking' then redis.call('DEL', KEYS[1]) end
return 0
`);

/** What a delivery of an update found. */
export type UpdateClaim =
  /** The first delivery: take it, then `done` or `release`. */
  | "fresh"
  /** Taken before: do nothing (a webhook retry, a poll after a lost offset). */
  | "done"
  /** Another delivery is taking it right now: answer "try again" (a webhook's 500). */
  | "taking";

/** A delivery that arrived while another delivery of the same update was being taken. */
export class UpdateInFlightError extends Error {
  override readonly name = "UpdateInFlightError";
  constructor(readonly updateId: number) {
    super(
      `Update ${updateId} is being taken by another delivery right now; Telegram will deliver it again.`,
    );
  }
}

/**
 * Which updates the bot has taken, by update id, in Redis: a redelivered
 * update (a webhook retry, a poll that repeats a batch) never makes a second
 * turn, a second answer to a command, or a second switch from a button. A
 * claim that fails is released, so the redelivery is taken; a claim whose
 * process died expires after `takingMs`.
 */
export class UpdateLedger {
  constructor(
    private readonly redis: Redis,
    /** `<prefix>:telegram:<bot id>`. */
    private readonly base: string,
    private readonly takingMs = 60_000,
    private readonly doneMs = 24 * 3600 * 1000,
  ) {}

  async claim(updateId: number): Promise<UpdateClaim> {
    const state = String(await CLAIM.run(this.redis, [this.#key(updateId)], [this.takingMs]));
    return state === "fresh" || state === "taking" ? state : "done";
  }

  async done(updateId: number): Promise<void> {
    await this.redis.set(this.#key(updateId), "done", "PX", this.doneMs);
  }

  async release(updateId: number): Promise<void> {
    await RELEASE.run(this.redis, [this.#key(updateId)]);
  }

  #key(updateId: number): string {
    return `${this.base}:update:${updateId}`;
  }
}

/**
 * The bot's first middleware: each update id is taken once. A redelivery of
 * an update that was taken does nothing; one that arrives while it is being
 * taken fails (Telegram delivers it again later); a failure lets go of the
 * claim, so the redelivery is taken.
 */
export function dedupeUpdates(ledger: UpdateLedger) {
  return async (ctx: Context, next: () => Promise<void>): Promise<void> => {
    const id = ctx.update.update_id;
    const claim = await ledger.claim(id);
    if (claim === "done") return;
    if (claim === "taking") throw new UpdateInFlightError(id);
    try {
      await next();
    } catch (error) {
      await ledger.release(id).catch(() => {});
      throw error;
    }
    await ledger.done(id);
  };
}
