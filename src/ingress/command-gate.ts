import type { InboundMessage } from "../core/conversation.ts";
import type { ChannelRuntime } from "./channel.ts";

/** Where a native command was run and by whom, as the access policy reads a message. */
export type CommandOrigin = Pick<
  InboundMessage,
  "platform" | "account" | "workspace" | "channel" | "conversation" | "user" | "eventId"
> & { readonly kind: "dm" | "group" };

/** The answer to a refused person who was told why within the interval (a command must be answered). */
export const REFUSED_AGAIN = "I can't take commands from you here; my earlier answer says why.";

/**
 * The access gate for a native command (a Slack slash command, a Discord
 * application command): its person and place pass the same policy a
 * message does (DM and group policies, allow lists, pairing), so someone
 * the bot does not talk to cannot run its commands either. Rate limits and
 * budgets are not metered: a command costs no tokens. Returns what to
 * answer instead of running the command, or undefined to run it.
 *
 * @example
 * const refusal = await commandRefusal(runtime, origin, "/tools");
 * if (refusal !== undefined) return ephemeral(refusal);
 */
export async function commandRefusal(
  runtime: ChannelRuntime,
  origin: CommandOrigin,
  line: string,
): Promise<string | undefined> {
  const verdict = await runtime.gate.admit({
    ...origin,
    text: line,
    attachments: [],
    time: Date.now(),
  });
  if (verdict.kind === "pass") return undefined;
  return verdict.reply ?? REFUSED_AGAIN;
}
