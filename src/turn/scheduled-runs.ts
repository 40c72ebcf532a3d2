import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import { conversationKey } from "../core/conversation.ts";
import { releaseReservations } from "./resume.ts";
import { LostLeaseError, type TurnEnvironment } from "./turn-environment.ts";

/**
 * Where the first scheduled run among the messages a turn would take is
 * one whose schedule stopped (paused or removed) after its tick queued it:
 * its index, or undefined when every run stands. A tick queues its run the
 * moment it comes; the turn may begin seconds later, behind the turn whose
 * answer paused the schedule (its target gone), and a paused schedule must
 * not speak again. Only scheduled messages are looked up, each once.
 */
export async function firstStoppedRun(
  env: TurnEnvironment,
  messages: readonly InboundMessage[],
): Promise<number | undefined> {
  const runs = env.scheduledRuns;
  if (runs === undefined) return undefined;
  for (const [i, message] of messages.entries()) {
    if (message.scheduled && (await runs.stopped(message.scheduled.id))) return i;
  }
  return undefined;
}

/**
 * Drops the stopped runs at the head of the inbox (the ones a turn would
 * begin with) without an answer: nobody is waiting for them, and the
 * schedule's owner was told why it stopped when it paused. Each run its
 * tick counted is taken back, after the drop: a crash between the two
 * leaves one run too many counted, never a run that runs uncounted.
 */
export async function dropStoppedRuns(
  env: TurnEnvironment,
  address: ConversationAddress,
  pending: readonly InboundMessage[],
  token: string,
): Promise<void> {
  const runs = env.scheduledRuns;
  if (runs === undefined) return;
  const stopped: (InboundMessage & { scheduled: { id: string } })[] = [];
  for (const message of pending) {
    if (!message.scheduled || !(await runs.stopped(message.scheduled.id))) break;
    stopped.push({ ...message, scheduled: message.scheduled });
  }
  const first = stopped[0];
  if (!first) return;
  if (!(await env.inbox.drop(address, token, first.eventId, stopped.length))) {
    throw new LostLeaseError("lease lost before the stopped scheduled runs left the inbox");
  }
  env.logger.warn("scheduled runs were dropped: their schedule stopped before their turn began", {
    conversation: conversationKey(address),
    events: stopped.map((m) => m.eventId),
  });
  await releaseReservations(env, stopped);
  for (const message of stopped) {
    await runs.withdraw(message.scheduled.id).catch((error: unknown) =>
      env.logger.warn("a dropped scheduled run could not be taken back; it stays counted", {
        schedule: message.scheduled.id,
        error: (error as Error)?.message,
      }),
    );
  }
}
