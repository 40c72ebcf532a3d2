import { createHash } from "node:crypto";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../core/conversation.ts";
import { deliver, targetOf } from "../delivery/delivery.ts";
import { StreamState } from "../delivery/stream-state.ts";
import { StatusLine } from "../delivery/turn-status.ts";
import type { HistoryReading } from "../store/index.ts";
import type { HeldMessage } from "../store/reservation-store.ts";
import { closeGivenUpRequest } from "./approval-wait.ts";
import { LostLeaseError, type TurnEnvironment } from "./turn-environment.ts";

/** The apology of a turn given up with nothing shown. */
export const GAVE_UP =
  "Sorry — something went wrong while answering this, and I gave up after several tries. Please send your message again.";

/** What a streamed partial is finished with when its turn is given up. */
export const GAVE_UP_PARTIAL =
  "_(I could not finish this answer: something went wrong several times. Send your message again for the rest.)_";

/**
 * What a turn given up says: its answer if the crashed runs had one (only
 * delivery was left; its files go with it), else what it had streamed with a closing note, else
 * the apology.
 */
export function giveUpText(turn: readonly ChatMessage[], streamed: string | undefined): string {
  const answer = answerOf(turn);
  if (answer !== undefined) return answer;
  if (streamed !== undefined && streamed.trim() !== "") return `${streamed}\n\n${GAVE_UP_PARTIAL}`;
  return GAVE_UP;
}

/** The turn's answer, when its crashed runs got as far as one (only delivery was left). */
function answerOf(turn: readonly ChatMessage[]): string | undefined {
  const last = turn.at(-1);
  if (last?.role === "assistant" && !last.tool_calls?.length && (last.content ?? "") !== "") {
    return last.content ?? "";
  }
  return undefined;
}

/** The fields a give-up is logged with. */
export function giveUpFields(address: ConversationAddress, checkpoint: Checkpoint) {
  return { conversation: conversationKey(address), turnId: checkpoint.turnId };
}

/**
 * Ends a turn that kept failing without moving on: says what it can (the
 * answer, if only delivery was left; the streamed partial, finished with a
 * note; else an apology), and lets the conversation move on even when that
 * last word cannot be delivered either.
 */
export async function giveUp(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: {
    readonly checkpoint: Checkpoint;
    readonly pending: readonly InboundMessage[];
    readonly history: HistoryReading;
  },
) {
  const { checkpoint, pending, history } = start;
  const fields = giveUpFields(address, checkpoint);
  env.logger.warn("giving up on a turn that failed repeatedly", fields);
  const stream = await new StreamState(env.inbox.redis, env.store.keys).read(
    address,
    checkpoint.turnId,
  );
  const { from } = env.store.history.split(address, history, checkpoint.historyStart);
  const text = giveUpText(from, stream.text);
  await releaseReservations(env, pending);
  await closeGivenUpRequest(env, address, checkpoint, pending).catch((error: unknown) => {
    env.logger.warn("a turn given up could not close its approval request", {
      ...fields,
      error: (error as Error)?.message,
    });
  });
  try {
    await deliver(env, address, checkpoint, pending, text, {
      streamRef: stream.ref,
      resumed: true,
      // The answer's files go with it; an apology or a cut-short partial sends none.
      ...(answerOf(from) !== undefined ? { files: checkpoint.files } : {}),
    });
  } catch (error) {
    env.logger.warn("a turn given up could not deliver its answer; sending the apology alone", {
      ...fields,
      error: (error as Error)?.message,
    });
    const outbound = env.outbounds[address.platform];
    await outbound
      ?.post(targetOf(address, pending.at(-1)), GAVE_UP, {
        idempotencyKey: `${checkpoint.turnId}-gave-up`,
        mayExist: true,
      })
      .catch((again: unknown) =>
        env.logger.warn("a turn given up could not say so; the conversation moves on", {
          ...fields,
          error: (again as Error)?.message,
        }),
      );
  }
  // The status line a crashed run left (Discord) goes with the last word.
  const outbound = env.outbounds[address.platform];
  if (outbound) {
    const where = { address, target: targetOf(address, pending.at(-1)) };
    const line = await StatusLine.open(env, outbound, where, checkpoint.turnId, true).catch(
      () => undefined,
    );
    await line?.remove();
  }
}

/**
 * Ends a turn that kept failing before it began (its worker died reading a
 * file, say): one apology to the sender, and the messages it took leave the
 * inbox without joining the history, so the conversation's later messages
 * are answered as usual. The apology's idempotency key comes from the first
 * message, so a give-up run again (its worker died here too) posts it once.
 */
export async function giveUpUnbegun(
  env: TurnEnvironment,
  address: ConversationAddress,
  given: readonly InboundMessage[],
  token: string,
): Promise<void> {
  const first = given[0];
  if (!first) return;
  const fields = { conversation: conversationKey(address), events: given.map((m) => m.eventId) };
  env.logger.warn("giving up on messages whose turn failed repeatedly before it began", fields);
  await env.outbounds[address.platform]
    ?.post(targetOf(address, given.at(-1)), GAVE_UP, {
      idempotencyKey: `${unbegunId(address, first)}-gave-up`,
      mayExist: true,
    })
    .catch((error: unknown) =>
      env.logger.warn("messages given up could not say so; the conversation moves on", {
        ...fields,
        error: (error as Error)?.message,
      }),
    );
  if (!(await env.inbox.drop(address, token, first.eventId, given.length))) {
    throw new LostLeaseError("lease lost before the messages given up left the inbox");
  }
  await releaseReservations(env, given);
}

/**
 * What stands for a turn id where none was made: the same for every pickup
 * of the same first message, and unlike any other conversation's (an event
 * id is unique only within its conversation).
 */
function unbegunId(address: ConversationAddress, first: InboundMessage): string {
  return createHash("sha256")
    .update(`${conversationKey(address)}\n${first.eventId}`)
    .digest("hex")
    .slice(0, 32);
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
