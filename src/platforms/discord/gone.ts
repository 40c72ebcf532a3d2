import { TargetGoneError } from "../../ports/target-gone.ts";

/**
 * Discord's error codes that mean the channel is gone for the bot: Unknown
 * Channel (deleted), Missing Access (the bot can no longer see it, or was
 * removed from the server), Unknown Guild (the server is gone).
 */
const GONE: Readonly<Record<number, string>> = {
  10003: "Unknown Channel",
  10004: "Unknown Guild",
  50001: "Missing Access",
};

/** `error` as a {@link TargetGoneError} when Discord says `channel` is gone for the bot; else `error` itself. */
export function discordGone(error: unknown, channel: string): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  const name = typeof code === "number" ? GONE[code] : undefined;
  return name ? new TargetGoneError("Discord", channel, `${name} (${code})`, error) : error;
}
