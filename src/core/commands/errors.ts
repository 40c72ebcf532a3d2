import type { ToolsVerb } from "./usage.ts";

/**
 * A `/tools` (or, as its subclass, `/skills`) command that cannot be read.
 * The message names the offending token and ends with the usage line of the
 * verb, so a channel can show it as-is: `Unknown scope "chanel". Use
 * conversation, channel, workspace or global: /tools off <tool> [scope]`.
 */
export class CommandError<V extends string = ToolsVerb> extends Error {
  override readonly name: string = "CommandError";
  constructor(
    /** What the person wrote that could not be read, or null when something is missing. */
    readonly token: string | null,
    /** The verb whose grammar failed, or null when the verb itself is unknown. */
    readonly verb: V | null,
    /** The usage line quoted at the end of the message. */
    readonly usage: string,
    problem: string,
  ) {
    super(problem.endsWith(".") ? `${problem} Usage: ${usage}` : `${problem}: ${usage}`);
  }
}

/**
 * Parses and plans in one step: a command that cannot be read is refused
 * with the parser's message, which names the token and the usage line.
 */
export function planOrRefuse<C, P>(
  text: string,
  parse: (text: string) => C,
  plan: (command: C) => P,
  refuse: (reply: string) => P,
): P {
  let command: C;
  try {
    command = parse(text);
  } catch (error) {
    if (error instanceof CommandError) return refuse(error.message);
    throw error;
  }
  return plan(command);
}
