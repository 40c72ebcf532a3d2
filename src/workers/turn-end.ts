import type { ConversationAddress } from "../core/agent/inbound.ts";
import { conversationKey } from "../core/agent/inbound.ts";
import type { TurnResult } from "../core/agent/loop.ts";
import { costMicros } from "../core/budget/usage.ts";
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

/**
 * Counts the turn's reported usage for `/usage` and the token budgets, once
 * per turn. The answer is already out: a failure to count is logged, not
 * made the person's problem.
 */
export async function recordUsage(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  result: TurnResult,
  choices: TurnChoices,
): Promise<void> {
  const last = start.pending.at(-1);
  const user = last?.user ? `${address.platform}:${last.user}` : undefined;
  try {
    await env.store.usage.record(
      { address, user },
      start.checkpoint.turnId,
      result.usage,
      costMicros(result.usage, choices.price),
      Date.now(),
    );
  } catch (error) {
    env.logger.warn("a turn's token usage could not be counted", {
      conversation: conversationKey(address),
      error: (error as Error)?.message,
    });
  }
}
