import type { Context } from "grammy";
import { type EventClaim, EventLedger } from "../event-ledger.ts";

/** What a delivery of an update found; see {@link EventClaim}. */
export type UpdateClaim = EventClaim;

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
 * Which updates the bot has taken, by update id: the channel's
 * {@link EventLedger}, so a redelivered update (a webhook retry, a poll that
 * repeats a batch) never makes a second turn, a second answer to a command,
 * or a second switch from a button.
 */
export class UpdateLedger {
  readonly #events: EventLedger;

  constructor(redis: ConstructorParameters<typeof EventLedger>[0], base: string) {
    this.#events = new EventLedger(redis, base);
  }

  claim(updateId: number): Promise<UpdateClaim> {
    return this.#events.claim(`update:${updateId}`);
  }

  done(updateId: number): Promise<void> {
    return this.#events.done(`update:${updateId}`);
  }

  release(updateId: number): Promise<void> {
    return this.#events.release(`update:${updateId}`);
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
