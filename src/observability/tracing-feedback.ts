import { extractCarrier, inSpan, SpanKind, type TraceCarrier, tracingOn } from "./tracing.ts";

/** A vote as the trace records it: no person's id, only what changed. */
export interface TracedVote {
  readonly platform: string;
  readonly vote: "up" | "down";
  /** The vote it replaced; undefined for a first vote. */
  readonly previous: "up" | "down" | undefined;
}

/**
 * Records a vote in the trace of the turn whose answer it rates: a
 * `switchyard.feedback` span, a child of the span the answer was delivered
 * under (its context stored with the answer's record), carrying a
 * `switchyard.feedback.vote` event. A turn span has long ended when a
 * person clicks, so the vote is a span of its own in the same trace rather
 * than an attribute of the turn's. Without a stored context (tracing was
 * off at delivery) the span starts a trace of its own.
 */
export async function traceVote(
  carrier: TraceCarrier | undefined,
  vote: TracedVote,
): Promise<void> {
  if (!tracingOn()) return;
  const attributes = {
    "switchyard.platform": vote.platform,
    "switchyard.feedback.vote": vote.vote,
    "switchyard.feedback.previous": vote.previous ?? "none",
  };
  await inSpan(
    "switchyard.feedback",
    { kind: SpanKind.SERVER, parent: extractCarrier(carrier), attributes },
    async (span) => {
      span.addEvent("switchyard.feedback.vote", attributes);
    },
  );
}
