import type { Context } from "grammy";
import type { LoggerPort } from "../../core/logger.ts";
import { type EventClaim, EventLedger } from "../../ingress/event-ledger.ts";

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

  constructor(
    redis: ConstructorParameters<typeof EventLedger>[0],
    where: ConstructorParameters<typeof EventLedger>[1],
  ) {
    this.#events = new EventLedger(redis, where);
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

export interface TakeOnceOptions {
  /** Whether a failure passes (Redis, the queue): the claim is let go and the update tried again. */
  readonly isTransient: (error: unknown) => boolean;
  /** Any other failure: tell the person, log and count; the update then counts as taken. Must not throw. */
  readonly skip: (ctx: Context, error: unknown) => Promise<void>;
  readonly logger: LoggerPort;
  readonly describe: (error: unknown) => string;
}

/**
 * The bot's first middleware: each update id is taken once. A redelivery of
 * an update that was taken does nothing; one that arrives while it is being
 * taken fails with {@link UpdateInFlightError} (Telegram delivers it again
 * later). A failure that passes lets go of the claim and is thrown, so the
 * update is tried again; any other failure is handed to `skip` (one clear
 * reply) and the update is recorded as taken, so no redelivery answers it
 * a second time.
 */
export function takeUpdatesOnce(ledger: UpdateLedger, options: TakeOnceOptions) {
  // Claims this process holds but could not let go of (Redis refused the DEL):
  // nobody else is taking those, so a try of ours may take them again at once.
  const stranded = new Set<number>();
  return async (ctx: Context, next: () => Promise<void>): Promise<void> => {
    const id = ctx.update.update_id;
    const claim = await ledger.claim(id);
    if (claim === "done") return;
    if (claim === "taking" && !stranded.delete(id)) throw new UpdateInFlightError(id);
    try {
      await next();
    } catch (error) {
      if (options.isTransient(error)) {
        await ledger.release(id).catch(() => stranded.add(id));
        throw error;
      }
      await options.skip(ctx, error);
    }
    // Taken (queued, answered or skipped): not recording it costs only a second
    // look should Telegram deliver it again within the claim's minute, which it
    // does not once the poll's offset or the webhook's 200 confirmed it.
    await ledger.done(id).catch((error: unknown) =>
      options.logger.warn(`Telegram update ${id} was taken but could not be recorded as taken`, {
        error: options.describe(error),
      }),
    );
  };
}
