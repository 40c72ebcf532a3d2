import type { GateVerdict } from "./access/gate.ts";

/** How a channel answers a refused message, and leaves a group where it can. */
export interface RefusalAnswer {
  readonly say: (text: string) => Promise<unknown>;
  /** Only where the platform lets a bot leave (Telegram); absent elsewhere. */
  readonly leave?: () => Promise<unknown>;
}

/**
 * Whether a message got through the gate. A refused one is answered with
 * why (when the sender is due an answer) and, where the policy says so,
 * the group is left; the caller then drops it: nothing is queued.
 */
export async function passedGate(verdict: GateVerdict, answer: RefusalAnswer): Promise<boolean> {
  if (verdict.kind === "pass") return true;
  if (verdict.reply !== undefined) await answer.say(verdict.reply);
  if (verdict.leave && answer.leave) await answer.leave();
  return false;
}
