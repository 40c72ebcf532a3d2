import type { ToolsVerb } from "./usage.ts";

/**
 * A `/tools` command that cannot be read. The message names the offending
 * token and ends with the usage line of the verb, so a channel can show it
 * as-is: `Unknown scope "chanel". Use conversation, channel, workspace or
 * global: /tools off <tool> [scope]`.
 */
export class CommandError extends Error {
  override readonly name = "CommandError";
  constructor(
    /** What the person wrote that could not be read, or null when something is missing. */
    readonly token: string | null,
    /** The verb whose grammar failed, or null when the verb itself is unknown. */
    readonly verb: ToolsVerb | null,
    /** The usage line quoted at the end of the message. */
    readonly usage: string,
    problem: string,
  ) {
    super(problem.endsWith(".") ? `${problem} Usage: ${usage}` : `${problem}: ${usage}`);
  }
}
