import type { Redis } from "ioredis";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import type { KeyScheme } from "../store/keys.ts";
import { LuaScript } from "../store/lua.ts";
import { deliver, targetOf } from "./delivery.ts";
import { StreamState } from "./stream-state.ts";
import { releaseReservations } from "./turn-end.ts";
import type { TurnEnvironment, TurnStart } from "./turn-environment.ts";

/**
 * A turn picked up again this many times without moving on is given up, so
 * one poison message cannot wedge a conversation. Pickups that made progress
 * (a step committed, a part delivered) do not count: a long turn on a fleet
 * that restarts a lot still finishes.
 */
export const MAX_STALLED_RESUMES = 3;

// KEYS: the turn's resume record. ARGV: the checkpoint's progress, ttl.
// Counts pickups that find the turn where the previous pickup found it; progress starts over at 1.
const COUNT = new LuaScript(`
local count = 1
if redis.call('HGET', KEYS[1], 'at') == ARGV[1] then
  count = redis.call('HINCRBY', KEYS[1], 'count', 1)
else
  redis.call('HSET', KEYS[1], 'at', ARGV[1], 'count', 1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return count
`);

/** Where a checkpoint stands: what a pickup that made progress changes. */
export function progressOf(checkpoint: Checkpoint): string {
  return `${checkpoint.step}.${checkpoint.calling?.step ?? 0}.${checkpoint.delivered.length}`;
}

/** Counts this pickup of a checkpointed turn; returns how many pickups in a row found it stalled. */
export async function countStalledResume(
  redis: Redis,
  keys: KeyScheme,
  address: ConversationAddress,
  checkpoint: Checkpoint,
): Promise<number> {
  const key = `${keys.conversationTag(address)}:resumes:${checkpoint.turnId}`;
  return Number(await COUNT.run(redis, [key], [progressOf(checkpoint), 86_400_000]));
}

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
export async function giveUp(env: TurnEnvironment, address: ConversationAddress, start: TurnStart) {
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
}
