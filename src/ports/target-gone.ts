/**
 * A platform that says the conversation is no longer there for the bot: the
 * channel was deleted or archived, the bot was removed from it, the chat
 * was left or blocks the bot. Trying again fails again, so a delivery that
 * meets it is not retried: the turn ends without its answer, and a
 * schedule that speaks there is paused (see docs/operate/schedules.md).
 * An Outbound's `post` throws it; the message names the platform and its
 * own reason, never a token, and `cause` is the SDK's error.
 *
 * @example
 * // Slack says channel C0456 is gone for the bot: is_archived.
 */
export class TargetGoneError extends Error {
  override readonly name = "TargetGoneError";
  constructor(
    readonly platform: string,
    readonly channel: string,
    /** The platform's own words: `channel_not_found`, `Unknown Channel (10003)`, `bot was kicked from the group chat`. */
    readonly reason: string,
    override readonly cause?: unknown,
  ) {
    super(`${platform} says channel ${channel} is gone for the bot: ${reason}.`);
  }
}

/** Whether `error` is, or wraps, a `TargetGoneError`. */
export function targetGoneOf(error: unknown): TargetGoneError | undefined {
  for (let e = error, depth = 0; e !== undefined && depth < 5; depth++) {
    if (e instanceof TargetGoneError) return e;
    e = (e as { cause?: unknown } | null)?.cause;
  }
  return undefined;
}
