/**
 * A mistake in how the bot was asked to start (a flag, a variable, an
 * option, a plugin), raised before anything starts; the message names the
 * mistake and the fix. The CLI prints it without a stack trace.
 */
export class StartOptionError extends Error {
  override readonly name = "StartOptionError";
}
