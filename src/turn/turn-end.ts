import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { TurnResult } from "../core/agent/loop.ts";
import { costMicros } from "../core/budget/usage.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { deliver } from "../delivery/delivery.ts";
import { StreamState } from "../delivery/stream-state.ts";
import type { TurnStatus } from "../delivery/turn-status.ts";
import type { MessageControl } from "../ports/outbound.ts";
import { type TargetGoneError, targetGoneOf } from "../ports/target-gone.ts";
import type { HeldMessage } from "../store/reservation-store.ts";
import type { UsageSubject } from "../store/usage-store.ts";
import type { TurnChoices, TurnEnvironment } from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";

/**
 * How a turn ends where people see it and where it is counted: its answer
 * delivered (or the turn marked cut short, or dropped for a conversation
 * that is gone), and what its model cost counted once.
 */

/** The turn that ends: its checkpoint as last written, its messages, what people chose, its ear for signals. */
interface Ending {
  readonly checkpoint: Checkpoint;
  readonly pending: readonly InboundMessage[];
  readonly choices: TurnChoices;
  readonly watch: TurnWatch | undefined;
}

/** Where the run showed the answer so far: the contract it ran with, the streamed message, the status. */
interface Shown {
  readonly contract: TurnContract;
  readonly streamRef: string | undefined;
  readonly finishStream:
    | ((text: string, controls?: readonly MessageControl[]) => Promise<void>)
    | undefined;
  readonly resumed: boolean;
  readonly status: TurnStatus | undefined;
}

/** What a text a signal cut short ends with, as the partial answer shows it. */
const CUT_SHORT = { stop: "_(stopped)_", interrupt: "_(interrupted)_" } as const;

/**
 * Shows how the run ended: its answer delivered (its files with it; only a
 * final answer is rated), or (interrupted) the turn marked cut short; a
 * conversation the platform says is gone gets nothing.
 */
export async function deliverResult(
  env: TurnEnvironment,
  address: ConversationAddress,
  turn: Ending,
  result: TurnResult,
  shown: Shown,
): Promise<void> {
  const { contract, status } = shown;
  try {
    if (result.stop === "interrupted") {
      await markCutShort(env, address, turn, shown);
    } else {
      await deliver(env, address, turn.checkpoint, turn.pending, result.answer, {
        streamRef: shown.streamRef,
        finishStream: shown.finishStream,
        resumed: shown.resumed,
        files: turn.checkpoint.files,
        ...(status ? { activity: (doing: Activity) => status.show(doing) } : {}),
        // Only a final answer is rated: not a step-limit note or an error reply.
        ...(result.stop === "answer"
          ? {
              rated: {
                contractHash: contract.hash,
                model: turn.choices.model ?? env.model ?? "default",
                promptTokens: result.usage.promptTokens,
                cachedTokens: result.usage.cachedTokens,
                completionTokens: result.usage.completionTokens,
              },
            }
          : {}),
      });
    }
  } catch (error) {
    const gone = targetGoneOf(error);
    if (gone === undefined) throw error;
    await targetGone(env, address, turn.pending, gone);
  }
}

/**
 * The platform says the conversation is gone for the bot: the answer has
 * nowhere to go, and a retry would meet the same refusal. The turn ends
 * as delivered (its messages leave the inbox), and the process is told,
 * so what keeps speaking there (a schedule) stops.
 */
async function targetGone(
  env: TurnEnvironment,
  address: ConversationAddress,
  pending: readonly InboundMessage[],
  gone: TargetGoneError,
): Promise<void> {
  const fields = { conversation: conversationKey(address), reason: gone.reason };
  env.logger.warn(
    "the platform says this conversation is gone for the bot; the answer is dropped, not retried",
    fields,
  );
  await env.onTargetGone?.({ address, messages: pending, error: gone }).catch((error: unknown) =>
    env.logger.warn("what speaks into a gone conversation could not be stopped", {
      ...fields,
      error: (error as Error)?.message,
    }),
  );
}

/**
 * A turn a signal cut short shows it where it was showing its answer: the
 * streamed partial is edited once to say so (a native stream is finished
 * with it; a Telegram draft's partial is posted). A stopped turn with nothing
 * shown says it stopped; an interrupted one says nothing, since the turn
 * that follows answers.
 */
async function markCutShort(
  env: TurnEnvironment,
  address: ConversationAddress,
  turn: Ending,
  { streamRef, finishStream, resumed }: Shown,
): Promise<void> {
  const kind = turn.watch?.signal.reason === "stop" ? "stop" : "interrupt";
  const { turnId } = turn.checkpoint;
  // A Telegram draft records what it showed with no message: it is posted, cut short.
  const partial = (await new StreamState(env.inbox.redis, env.store.keys).read(address, turnId))
    .text;
  if (partial === undefined && kind === "interrupt") return;
  const text = partial !== undefined ? `${partial}\n\n${CUT_SHORT[kind]}` : "Stopped.";
  await deliver(env, address, turn.checkpoint, turn.pending, text, {
    streamRef,
    finishStream,
    resumed,
  });
}

/** What a turn's model calls cost, priced for the model it ran on, as of now. */
export function spentOn(result: TurnResult, choices: TurnChoices) {
  return {
    usage: result.usage,
    costMicros: costMicros(result.usage, choices.price),
    now: Date.now(),
  };
}

export type Spent = ReturnType<typeof spentOn>;

/** Who the turn's usage is counted for: the conversation, and the person who sent its last message. */
export function usageSubject(
  address: ConversationAddress,
  pending: readonly InboundMessage[],
): UsageSubject {
  const last = pending.at(-1);
  const user = last?.user ? `${address.platform}:${last.user}` : undefined;
  return { address, user };
}

/**
 * What a parked turn's model cost so far is counted now, once by the wait's
 * id; the resumed run counts the rest. A failure to count is logged.
 */
export async function countParked(
  env: TurnEnvironment,
  subject: UsageSubject,
  waitId: string,
  { usage, costMicros, now }: Spent,
): Promise<void> {
  try {
    await env.store.usage.record(subject, `ask-${waitId}`, usage, costMicros, now);
  } catch (error) {
    env.logger.warn("a parked turn's token usage could not be counted", {
      conversation: conversationKey(subject.address),
      error: (error as Error)?.message,
    });
  }
}

/**
 * Counts the turn's usage for the workspace and the person, once the script
 * that ended the turn counted it for the conversation (see Inbox.finish), so
 * `/usage` and the token budgets see every turn once; in the same scripts,
 * the token-budget reservations of the messages it answered give way to
 * that real usage. The answer is already out: a failure to count is logged,
 * not made the person's problem (the reservations expire).
 */
export async function countShared(
  env: TurnEnvironment,
  subject: UsageSubject,
  { usage, costMicros, now }: Spent,
  answered: readonly HeldMessage[],
): Promise<void> {
  try {
    await env.store.reservations.settle(
      env.store.usage.sharedCountings(subject, usage, costMicros, now),
      answered,
    );
  } catch (error) {
    env.logger.warn("a turn's token usage could not be counted", {
      conversation: conversationKey(subject.address),
      error: (error as Error)?.message,
    });
  }
}
