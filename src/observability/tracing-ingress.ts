import { context, createContextKey, type Span, trace } from "@opentelemetry/api";
import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import { hashedKey, injectCarrier, inSpan, SpanKind, type TraceCarrier } from "./tracing.ts";

/** What a message looks like to the ingress spans: its address and key, never its text. */
export interface TracedMessage extends ConversationAddress {
  readonly trace?: TraceCarrier;
}

/** Set while a channel's receive span is open, so the queue's enqueue span joins it. */
const RECEIVING = createContextKey("switchyard.ingress.receiving");

/**
 * `switchyard.ingress` from the moment a channel takes a platform event:
 * the access gate, the commands and the enqueue happen inside it, and what
 * became of the message (`queued`, `repeat`, `answered`, `refused`) is its
 * `switchyard.ingress.outcome`. The queue's
 * `switchyard.enqueue` is its child.
 */
export function traceReceive<R extends string>(
  message: TracedMessage,
  take: () => Promise<R>,
): Promise<R> {
  return inSpan("switchyard.ingress", { kind: SpanKind.SERVER }, async (ingress) => {
    // Off (the API's no-op tracer): not even the key is hashed.
    if (!ingress.isRecording()) return take();
    ingress.setAttributes(attributesOf(message));
    const outcome = await context.with(context.active().setValue(RECEIVING, true), take);
    ingress.setAttribute("switchyard.ingress.outcome", outcome);
    return outcome;
  });
}

/**
 * The message's enqueue span, `switchyard.enqueue` (inbox and job), whose
 * context the message carries from then on, so the worker's spans join this
 * trace: under the channel's receive span when one is open, else under an
 * ingress span of its own (a message handed to the queue directly).
 * `enqueue` gets the message with its carrier; when nothing records, the
 * message is passed through as it is.
 */
export function traceIngress<M extends TracedMessage, R extends { fresh: boolean }>(
  message: M,
  enqueue: (carried: M) => Promise<R>,
): Promise<R> {
  const receiving = context.active().getValue(RECEIVING) === true;
  const ingress = receiving ? trace.getActiveSpan() : undefined;
  if (ingress) return traceEnqueue(message, enqueue, ingress);
  return inSpan("switchyard.ingress", { kind: SpanKind.SERVER }, async (span) => {
    if (span.isRecording()) span.setAttributes(attributesOf(message));
    return traceEnqueue(message, enqueue, span);
  });
}

function traceEnqueue<M extends TracedMessage, R extends { fresh: boolean }>(
  message: M,
  enqueue: (carried: M) => Promise<R>,
  ingress: Span,
): Promise<R> {
  return inSpan("switchyard.enqueue", { kind: SpanKind.PRODUCER }, async (span) => {
    if (!span.isRecording()) return enqueue(message);
    span.setAttributes(attributesOf(message));
    const carrier = injectCarrier();
    const result = await enqueue(carrier ? { ...message, trace: carrier } : message);
    span.setAttribute("switchyard.message.fresh", result.fresh);
    ingress.setAttribute("switchyard.message.fresh", result.fresh);
    return result;
  });
}

function attributesOf(message: TracedMessage) {
  return {
    "switchyard.platform": message.platform,
    "switchyard.conversation.hash": hashedKey(conversationKey(message)),
  };
}
