import { arrivedAt, type QueueBehaviour, windowCloses } from "../core/agent/queue-mode.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import { LostLeaseError } from "./turn-environment.ts";
import type { TurnSignalKind, TurnSignals } from "./turn-signals.ts";

/**
 * How the quiet window ended for a turn that started inside it: `quiet`
 * (nobody wrote; the turn's request stands), or `fold` with the messages
 * that came meanwhile (the request starts over with them in it).
 */
export type WindowEnd =
  | { readonly kind: "quiet"; readonly signal?: TurnSignalKind }
  | { readonly kind: "fold"; readonly arrived: readonly InboundMessage[] };

/** Whether a turn in this mode may start inside its quiet window and fold later lines in. */
export function foldsBursts(behaviour: QueueBehaviour): boolean {
  // collect and steer take everything waiting, so a later line belongs to the same turn;
  // followup answers one person's burst, and interrupt ends a running turn on a new line.
  return behaviour.mode === "collect" || behaviour.mode === "steer";
}

/**
 * The quiet window, run beside the model instead of before it. A lone
 * message goes to the model at once; the turn keeps everything it would
 * show or do (streamed text, tool calls with effects, the answer) until the
 * window closes. Lines that came meanwhile are folded in and the request
 * starts over, so a burst is still one turn and one answer; with nobody
 * writing, the request already under way stands and nothing was lost to
 * waiting.
 *
 * `taken` are the turn's messages so far; the window is the one
 * {@link windowCloses} computes for them (the last line's time plus the
 * window, at most five windows from the first). One Redis read per window.
 */
export async function waitForQuiet(
  signals: TurnSignals,
  address: ConversationAddress,
  turn: { readonly turnId: string; readonly consumed: number },
  taken: readonly InboundMessage[],
  behaviour: QueueBehaviour,
  signal: AbortSignal,
): Promise<WindowEnd> {
  const closes = windowCloses(taken, behaviour);
  if (closes === undefined) return { kind: "quiet" };
  const waitMs = closes - Date.now();
  if (waitMs > 0) await sleepOrLose(waitMs, signal);
  const found = await signals.boundary(address, turn.turnId, turn.consumed, true);
  if (found.signal) return { kind: "quiet", signal: found.signal };
  // Lines that came by the time the window closed fold in; later ones make the next turn.
  const arrived: InboundMessage[] = [];
  for (const raw of found.arrived) {
    const message = JSON.parse(raw) as InboundMessage;
    if (arrivedAt(message) > closes) break;
    arrived.push(message);
  }
  return arrived.length > 0 ? { kind: "fold", arrived } : { kind: "quiet" };
}

async function sleepOrLose(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
  if (signal.aborted) throw new LostLeaseError("lease lost");
}
