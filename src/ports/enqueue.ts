import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";

/**
 * Where a channel's ingress puts a message: the conversation's inbox, deduped
 * by event id, with the job that makes a worker look at it. The queue in
 * `src/queue` implements it; a channel knows only this.
 */
export interface Enqueue {
  /** Resolves once the message is safely stored; `fresh` is false for a repeat of an event already taken. */
  enqueue(message: InboundMessage): Promise<{ fresh: boolean }>;
}

/** Whether a conversation is at rest: nothing waiting, no turn in progress (the console waits for it at the end of input). */
export type IsIdle = (address: ConversationAddress) => Promise<boolean>;

/** A message the queue refuses as malformed: a channel's bug, never the person's. */
export class InboundMessageError extends Error {
  override readonly name = "InboundMessageError";
}
