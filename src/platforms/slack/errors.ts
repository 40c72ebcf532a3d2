/**
 * The failures that leave a Slack event Slack's to deliver again: the
 * receiver answers them 503 over HTTP and leaves them unacked over Socket
 * Mode. Anything else a payload causes is acknowledged, so no payload can
 * make Slack retry it forever (or stop sending events to an app that fails
 * too many).
 */

/** Bolt passes errors with a `code` through its error handler unwrapped. */
const CODE = "switchyard_slack_take";

/** An event ingress could not take (Redis or Slack's API failed); nothing of it was kept. */
export class SlackTakeError extends Error {
  override readonly name = "SlackTakeError";
  readonly code = CODE;
  constructor(
    /** The event's id in the ledger, when it got that far. */
    readonly eventId: string | undefined,
    override readonly cause: unknown,
  ) {
    super(
      `A Slack event${eventId ? ` (${eventId})` : ""} could not be taken: ${describe(cause)}. Slack will deliver it again; check Redis and the Slack Web API if this repeats.`,
    );
  }
}

/** A delivery that arrived while another delivery of the same event was being taken. */
export class SlackEventInFlightError extends Error {
  override readonly name = "SlackEventInFlightError";
  readonly code = CODE;
  constructor(readonly eventId: string) {
    super(
      `Slack event ${eventId} is being taken by another delivery right now; Slack will deliver it again.`,
    );
  }
}

/** Whether an error (or one Bolt wrapped it in) means "let Slack deliver this again". */
export function isRetryable(error: unknown): boolean {
  if (error instanceof SlackTakeError || error instanceof SlackEventInFlightError) return true;
  const wrapped = error as { original?: unknown; originals?: unknown[] } | undefined;
  if (wrapped?.original !== undefined) return isRetryable(wrapped.original);
  return Array.isArray(wrapped?.originals) && wrapped.originals.some(isRetryable);
}

/** An error as the error, or `error` itself when it is already one of these. */
export function asTakeError(error: unknown, eventId?: string): Error {
  return isRetryable(error) ? (error as Error) : new SlackTakeError(eventId, error);
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
