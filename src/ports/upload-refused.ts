/**
 * A platform that refused a file the answer carried (not in the channel, no
 * permission to attach, too big): trying again would fail again. An
 * Outbound's `upload` throws it, and the turn posts its message as one note
 * and ends as it would; any other failure is retried like a post's. The
 * message names the platform, the file and the platform's own reason, and
 * never a token; `cause` is the SDK's error, for what wants its code.
 *
 * @example
 * // Slack refused the file "chart.png": not_in_channel. Invite the bot to the channel (/invite @bot).
 */
export class UploadRefusedError extends Error {
  override readonly name = "UploadRefusedError";
  constructor(
    readonly platform: string,
    readonly file: string,
    readonly reason: string,
    fix: string | undefined,
    override readonly cause: unknown,
  ) {
    super(`${platform} refused the file "${file}": ${reason}.${fix ? ` ${fix}` : ""}`);
  }
}
