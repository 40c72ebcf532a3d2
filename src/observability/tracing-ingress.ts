import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import { hashedKey, injectCarrier, inSpan, SpanKind, type TraceCarrier } from "./tracing.ts";

/** What a message looks like to the ingress spans: its address and key, never its text. */
export interface TracedMessage extends ConversationAddress {
  readonly trace?: TraceCarrier;
}

/**
 * The message's first two spans: `switchyard.ingress` (the channel handed it
 * over) and, under it, `switchyard.enqueue` (inbox and job), whose context the
 * message carries from then on, so the worker's spans join this trace.
 * `enqueue` gets the message with its carrier; when nothing records, the
 * message is passed through as it is.
 */
export function traceIngress<M extends TracedMessage, R extends { fresh: boolean }>(
  message: M,
  enqueue: (carried: M) => Promise<R>,
): Promise<R> {
  return inSpan("switchyard.ingress", { kind: SpanKind.SERVER }, (ingress) =>
    inSpan("switchyard.enqueue", { kind: SpanKind.PRODUCER }, async (span) => {
      // Off (the API's no-op tracer): not even the key is hashed.
      if (!span.isRecording()) return enqueue(message);
      const attributes = {
        "switchyard.platform": message.platform,
        "switchyard.conversation.hash": hashedKey(conversationKey(message)),
      };
      ingress.setAttributes(attributes);
      span.setAttributes(attributes);
      const carrier = injectCarrier();
      const result = await enqueue(carrier ? { ...message, trace: carrier } : message);
      span.setAttribute("switchyard.message.fresh", result.fresh);
      ingress.setAttribute("switchyard.message.fresh", result.fresh);
      return result;
    }),
  );
}
