import type { ConversationAddress } from "../core/conversation.ts";

/** Why a message is not taken, said to the person once; nothing is queued, so it costs no tokens. */
export interface Refusal {
  /** For metrics and logs, e.g. `token_budget`. */
  readonly reason: string;
  /** The reply: what limit, and when it lifts or what to do. */
  readonly text: string;
}

/** Who a message is from and where: what a check before the queue reads. */
export interface MessageSubject extends ConversationAddress {
  /** The platform's user id as the inbound message carries it (not platform-qualified). */
  readonly user: string;
}

/**
 * A check a message for the model must pass before it is queued: a
 * refusal, or undefined to let it through. Token budgets are one; an access
 * gate composes several (see `firstRefusal`).
 */
export type AdmitCheck = (message: MessageSubject) => Promise<Refusal | undefined>;

/** Runs checks in order and answers the first refusal. */
export function firstRefusal(...checks: readonly AdmitCheck[]): AdmitCheck {
  return async (message) => {
    for (const check of checks) {
      const refusal = await check(message);
      if (refusal) return refusal;
    }
    return undefined;
  };
}
