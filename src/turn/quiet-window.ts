import type { TurnResult } from "../core/agent/loop.ts";
import { arrivedAt, type QueueBehaviour, windowCloses } from "../core/agent/queue-mode.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import type { CheckpointWrites } from "./checkpoint-writes.ts";
import { LostLeaseError } from "./turn-environment.ts";
import type { TurnSignalKind, TurnSignals, TurnWatch } from "./turn-signals.ts";

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

/**
 * Waits `ms`, or less when `signal` (the lease's) aborts first, then throws
 * {@link LostLeaseError} if it did. It takes its listener off the signal
 * either way: a lease lives for the whole drain, and a drain may wait many
 * windows.
 */
export async function sleepOrLose(ms: number, signal: AbortSignal): Promise<void> {
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

/** A turn that began inside its quiet window (see Turn in turn.ts), as {@link askInWindow} runs it. */
export interface WindowedTurn {
  readonly signals: TurnSignals;
  readonly address: ConversationAddress;
  readonly behaviour: QueueBehaviour;
  /** The lease's signal: lost, the request under way is cancelled. */
  readonly lease: AbortSignal;
  readonly writes: CheckpointWrites;
  readonly watch: TurnWatch | undefined;
  /** The turn's messages so far: those it took, and those folded in since. */
  readonly pending: () => readonly InboundMessage[];
  /** The agent loop, its text shown by `onText`, cancelled by `signal`. */
  readonly ask: (onText: (text: string) => void, signal: AbortSignal) => Promise<TurnResult>;
  /** Lines that came inside the quiet window join the turn, stored before its request starts over. */
  readonly fold: (arrived: readonly InboundMessage[]) => Promise<void>;
}

/**
 * The agent loop for a turn that began inside its quiet window: the
 * request goes out at once, while what it would show is held until the
 * window closes. Lines that came by then join the turn (stored with the
 * checkpoint that counts them, as steered lines are) and the request
 * starts over with them; with none, the request under way stands.
 *
 * Into a `draft` (a Telegram private chat) the text streams at once: a
 * draft is no message, so a request started over streams its answer into
 * the same draft in place of the first, and nothing is left behind to
 * edit or double. Held, the first words of a model that answers fast
 * waited for the window (up to 400 ms) at low load, where nobody is typing.
 */
export async function askInWindow(
  turn: WindowedTurn,
  show: (text: string) => void,
  draft: boolean,
): Promise<TurnResult> {
  const { lease, writes } = turn;
  for (;;) {
    const attempt = new AbortController();
    const relay = () => attempt.abort(lease.reason);
    if (lease.aborted) relay();
    else lease.addEventListener("abort", relay, { once: true });
    let held: string | undefined;
    let quiet = false;
    // The model answered before the window closed: the answer is delivered whole, not streamed first.
    let answered = false;
    const onText = (text: string) => {
      if (quiet || draft) show(text);
      else held = text;
    };
    const progress = { turnId: writes.checkpoint.turnId, consumed: writes.checkpoint.inboxCount };
    const end = waitForQuiet(
      turn.signals,
      turn.address,
      progress,
      turn.pending(),
      turn.behaviour,
      lease,
    );
    const closed = end.then((e) => {
      if (e.kind === "fold") throw new StartedOver();
    });
    closed.catch(() => {});
    writes.hold(closed, (step) => {
      const last = step.messages.at(-1);
      answered = last?.role === "assistant" && !last.tool_calls?.length;
    });
    const asked = turn.ask(onText, attempt.signal).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    try {
      const ended = await end;
      if (ended.kind === "quiet") {
        if (ended.signal) turn.watch?.abort(ended.signal);
        quiet = true;
        // An answer that is already whole is posted once by its delivery: no preview, no edit.
        if (held !== undefined && !answered) show(held);
        const outcome = await asked;
        if ("error" in outcome) throw outcome.error;
        return outcome.result;
      }
      attempt.abort(new StartedOver());
      await asked;
      await turn.fold(ended.arrived);
    } catch (error) {
      attempt.abort(error);
      await asked;
      throw error;
    } finally {
      lease.removeEventListener("abort", relay);
      writes.release();
    }
  }
}

/** Thrown into a request dropped because lines came inside its quiet window: it starts over with them. */
class StartedOver extends Error {
  override readonly name = "StartedOver";
}
