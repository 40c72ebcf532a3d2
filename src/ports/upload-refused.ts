/**
 * A platform said no to a file for good (too big for it, a type it does not
 * take, no permission to upload here): trying again would fail again. An
 * Outbound's `upload` throws it so the turn posts one note and ends
 * normally; any other error is taken as "not now" and retried like a post.
 * The message is shown to people: no tokens, no URLs with secrets.
 *
 * @example
 * throw new UploadRefusedError("Slack refused it: the workspace does not allow file uploads");
 */
export class UploadRefusedError extends Error {
  override readonly name = "UploadRefusedError";
}
