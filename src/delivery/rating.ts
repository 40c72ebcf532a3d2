import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import { injectCarrier } from "../observability/tracing.ts";
import { feedbackControls, feedbackId } from "../ports/feedback.ts";
import type { MessageControl } from "../ports/outbound.ts";
import type { RatedTurn } from "../store/feedback-store.ts";
import type { DeliveryEnvironment } from "./delivery-environment.ts";

/**
 * Rates a final answer before its last part goes out: records the turn
 * (contract hash, model, tokens, the turn span's context) under the
 * answer's feedback id, derived from the conversation and the turn id so a
 * resumed delivery writes the same, and returns the 👍 / 👎 controls that
 * carry the id (none when the bot shows no buttons: `/good` and `/bad`
 * still find the answer). The record goes first, so a click never finds no record.
 * A record that cannot be written (Redis away) costs the answer its
 * buttons, never the answer.
 */
export async function rateAnswer(
  env: DeliveryEnvironment,
  address: ConversationAddress,
  turn: RatedTurn,
): Promise<readonly MessageControl[]> {
  const id = feedbackId(conversationKey(address), turn.turnId);
  try {
    const trace = injectCarrier();
    await env.store.feedback.rate(
      address,
      id,
      { ...turn, ...(trace ? { trace } : {}) },
      Date.now(),
    );
  } catch (error) {
    env.logger.warn("an answer could not be rated; it goes out without feedback buttons", {
      conversation: conversationKey(address),
      turnId: turn.turnId,
      error: error instanceof Error ? error.message : String(error),
    });
    return [];
  }
  // Buttons off: the answer is still rated, for a typed /good or /bad.
  return env.feedback === false ? [] : feedbackControls(id);
}
