import type { ConversationAddress } from "../core/agent/inbound.ts";
import { conversationKey } from "../core/agent/inbound.ts";
import type { TurnResult } from "../core/agent/loop.ts";
import type { Usage } from "../core/agent/messages.ts";
import { costMicros } from "../core/budget/usage.ts";
import type { HeldMessage } from "../store/reservation-store.ts";
import type { UsageSubject } from "../store/usage-store.ts";
import { deliver } from "./delivery.ts";
import { StreamState } from "./stream-state.ts";
import type { TurnChoices } from "./turn-choices.ts";
import type { TurnEnvironment, TurnStart } from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";
import type { TurnSteps } from "./turn-steps.ts";

/** What a turn ended as when a signal cut it short, as the partial answer shows it. */
const CUT_SHORT = {
  stop: "_(stopped)_",
  interrupt: "_(interrupted)_",
} as const;

/**
 * A turn a signal cut short shows it where it was showing its answer: the
 * streamed partial is edited once to say so. A stopped turn with nothing
 * shown says it stopped; an interrupted one says nothing, since the turn
 * that follows answers.
 */
export async function markCutShort(
  env: TurnEnvironment,
  address: ConversationAddress,
  steps: TurnSteps,
  watch: TurnWatch | undefined,
  shown: { streamRef: string | undefined; resumed: boolean; pending: TurnStart["pending"] },
): Promise<void> {
  const kind = watch?.signal.reason === "stop" ? "stop" : "interrupt";
  const { turnId } = steps.checkpoint;
  const partial = shown.streamRef
    ? (await new StreamState(env.inbox.redis, env.store.keys).read(address, turnId)).text
    : undefined;
  if (partial === undefined && kind === "interrupt") return;
  const text = partial !== undefined ? `${partial}\n\n${CUT_SHORT[kind]}` : "Stopped.";
  await deliver(env, address, steps.checkpoint, shown.pending, text, {
    streamRef: shown.streamRef,
    resumed: shown.resumed,
  });
}

/** A turn's reported usage, and who it is counted for, as the drain counts it when the turn ends. */
export interface TurnUsage {
  readonly subject: UsageSubject;
  readonly usage: Usage;
  readonly costMicros: number;
  readonly now: number;
}

/** What {@link countShared} and the inbox's finish count for a turn that ended. */
export function turnUsage(
  address: ConversationAddress,
  start: TurnStart,
  result: TurnResult,
  choices: TurnChoices,
): TurnUsage {
  const last = start.pending.at(-1);
  const user = last?.user ? `${address.platform}:${last.user}` : undefined;
  return {
    subject: { address, user },
    usage: result.usage,
    costMicros: costMicros(result.usage, choices.price),
    now: Date.now(),
  };
}

/**
 * Counts a turn's usage for the workspace and the person, once the script
 * that ended the turn counted it for the conversation (see Inbox.finish), so
 * `/usage` and the token budgets see every turn once; in the same scripts,
 * the token-budget reservations of the messages it answered (`answered`)
 * give way to that real usage. The answer is already out: a failure to
 * count is logged, not made the person's problem (the reservations expire).
 */
export async function countShared(
  env: TurnEnvironment,
  counted: TurnUsage,
  answered: readonly HeldMessage[] = [],
): Promise<void> {
  try {
    const { subject, usage, costMicros, now } = counted;
    await env.store.reservations.settle(
      env.store.usage.sharedCountings(subject, usage, costMicros, now),
      answered,
    );
  } catch (error) {
    env.logger.warn("a turn's token usage could not be counted", {
      conversation: conversationKey(counted.subject.address),
      error: (error as Error)?.message,
    });
  }
}

/**
 * Counts what a turn cost before it parked on an approval request, for the
 * conversation, the workspace and the person, once per request (the id
 * guards it): the turn's usage after it resumes is counted when it ends.
 */
export async function countParked(
  env: TurnEnvironment,
  counted: TurnUsage,
  requestId: string,
): Promise<void> {
  try {
    const { subject, usage, costMicros, now } = counted;
    await env.store.usage.record(subject, `ask-${requestId}`, usage, costMicros, now);
  } catch (error) {
    env.logger.warn("a parked turn's token usage could not be counted", {
      conversation: conversationKey(counted.subject.address),
      error: (error as Error)?.message,
    });
  }
}

/**
 * Gives back the token-budget reservations of a turn's messages when the
 * turn ends without usage to count (given up). A failure is logged: the
 * reservations then expire on their own.
 */
export async function releaseReservations(
  env: TurnEnvironment,
  messages: readonly HeldMessage[],
): Promise<void> {
  try {
    await env.store.reservations.release(messages);
  } catch (error) {
    env.logger.warn("a turn's token-budget reservations could not be released; they expire", {
      error: (error as Error)?.message,
    });
  }
}
