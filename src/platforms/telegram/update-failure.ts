import { GrammyError, HttpError } from "grammy";
import { isTransientFailure } from "../../core/transient-failure.ts";
import { UpdateInFlightError } from "./update-ledger.ts";

/**
 * Whether an update that failed will be taken if tried again: Redis or the
 * queue unavailable (see {@link isTransientFailure}), Telegram unreachable
 * or answering 5xx or 429, or another delivery of the same update still
 * being taken. Those are held and tried again for as long as it takes; any
 * other failure (a bug, a payload that cannot be read) is the update's own,
 * and it is skipped after one clear reply.
 */
export function isTransientUpdateFailure(error: unknown): boolean {
  return isTransientFailure(error, (e) => {
    if (e instanceof UpdateInFlightError || e instanceof HttpError) return true;
    return e instanceof GrammyError && (e.error_code === 429 || e.error_code >= 500);
  });
}
