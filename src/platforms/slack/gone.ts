import { TargetGoneError } from "../../ports/target-gone.ts";

/**
 * Slack's answers that mean the conversation is gone for the bot: deleted
 * (or never visible to it), archived, or the bot is no longer a member.
 */
const GONE = new Set(["channel_not_found", "not_in_channel", "is_archived"]);

/** `error` as a {@link TargetGoneError} when Slack says `channel` is gone for the bot; else `error` itself. */
export function slackGone(error: unknown, channel: string): unknown {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof code === "string" && GONE.has(code)
    ? new TargetGoneError("Slack", channel, code, error)
    : error;
}
