import { type Context, context, type Link, ROOT_CONTEXT } from "@opentelemetry/api";
import type { TurnResult } from "../core/agent/loop.ts";
import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import {
  extractCarrier,
  hashedKey,
  inSpan,
  linkTo,
  noteOnActiveSpan,
  SpanKind,
  type TraceCarrier,
  tracer,
  tracingOn,
} from "./tracing.ts";

/** A message of the turn, as the turn's spans see it: its carried context and when the inbox took it. */
export interface TurnMessage {
  readonly trace?: TraceCarrier;
  readonly receivedAt?: number;
}

export interface TurnTraceInfo {
  readonly address: ConversationAddress;
  readonly pending: readonly TurnMessage[];
  /** A turn taken up from its checkpoint after its worker died. */
  readonly resumed: boolean;
  readonly queueMode: string;
}

/**
 * Runs a turn inside `switchyard.turn`. A new turn continues the trace of the
 * first message it answers (after a `switchyard.queue.wait` span per message,
 * from the inbox to now) and links the others it collected. A resumed turn
 * cannot continue a trace whose spans died with the crashed worker: it starts
 * a trace of its own, linked to the messages' traces it resumes.
 */
export function traceTurn<T>(info: TurnTraceInfo, run: () => Promise<T>): Promise<T> {
  // Off: no queue-wait spans, links or hashed key to build.
  if (!tracingOn()) return run();
  const carried = info.pending.filter((message) => message.trace?.traceparent);
  const parent: Context = info.resumed ? ROOT_CONTEXT : extractCarrier(carried[0]?.trace);
  if (!info.resumed) for (const message of carried) queueWait(message);
  const relation = info.resumed ? "resumes" : "collects";
  const links = (info.resumed ? carried : carried.slice(1))
    .map((message) => linkTo(message.trace, { "switchyard.link": relation }))
    .filter((link): link is Link => link !== undefined);
  return inSpan(
    "switchyard.turn",
    {
      kind: SpanKind.CONSUMER,
      parent,
      links,
      attributes: {
        "switchyard.platform": info.address.platform,
        "switchyard.conversation.hash": hashedKey(conversationKey(info.address)),
        "switchyard.queue.mode": info.queueMode,
        "switchyard.turn.resumed": info.resumed,
        "switchyard.turn.messages": info.pending.length,
      },
    },
    () => run(),
  );
}

/**
 * Runs what a new turn does before its span opens (reading the history,
 * downloading attachments) in the first carried message's trace, so its Redis
 * commands and HTTP requests show there, beside `switchyard.queue.wait`,
 * instead of nowhere (client spans are only made under a span).
 */
export function beforeTurn<T>(pending: readonly TurnMessage[], run: () => Promise<T>): Promise<T> {
  const carried = pending.find((message) => message.trace?.traceparent);
  return carried ? context.with(extractCarrier(carried.trace), run) : run();
}

/** The time a message waited in the inbox for its turn, in the message's own trace. */
function queueWait(message: TurnMessage): void {
  if (message.receivedAt === undefined) return;
  const span = tracer().startSpan(
    "switchyard.queue.wait",
    { kind: SpanKind.INTERNAL, startTime: message.receivedAt },
    extractCarrier(message.trace),
  );
  span.end();
}

/** What the turn span learns at the end: the frozen contract and how the loop went. */
export function noteTurnEnd(contractHash: string, result: TurnResult): void {
  noteOnActiveSpan({
    "switchyard.contract.hash": contractHash,
    "switchyard.turn.outcome": result.stop,
    "switchyard.turn.steps": result.steps,
    "gen_ai.usage.input_tokens": result.usage.promptTokens,
    "gen_ai.usage.cache_read.input_tokens": result.usage.cachedTokens,
    "gen_ai.usage.output_tokens": result.usage.completionTokens,
  });
}

/** Runs a delivery inside `switchyard.deliver`; the delivery notes its parts and edits. */
export function traceDelivery<T>(platform: string, run: () => Promise<T>): Promise<T> {
  return inSpan(
    "switchyard.deliver",
    { kind: SpanKind.CLIENT, attributes: { "switchyard.platform": platform } },
    run,
  );
}

/** Called by the delivery: how many parts the answer went out in, and how many were edits. */
export function noteDelivery(parts: number, edits: number): void {
  noteOnActiveSpan({ "switchyard.delivery.parts": parts, "switchyard.delivery.edits": edits });
}
