import type { Vote } from "../../ports/feedback.ts";
import type { ChatCommand, CommandCall } from "./registry.ts";

/**
 * `/good` and `/bad`: the typed twins of the 👍 / 👎 under an answer, in
 * every channel (the only way in the terminal, which shows no buttons).
 * They rate the conversation's last rated answer through the same desk a
 * click goes to: one vote per person per answer, a later one replaces it.
 */

export const FEEDBACK_COMMAND_REPLIES = {
  unavailable: "This process takes no votes on answers, so nothing was recorded.",
} as const;

/** A typed vote: `/good` is 👍, `/bad` is 👎. */
function voteCommand(name: "good" | "bad", vote: Vote, thumb: string): ChatCommand {
  const summary = `Rates my last answer here ${thumb}.`;
  return {
    name,
    audience: "anyone",
    help: [{ usage: `/${name}`, summary, audience: "anyone" }],
    run: (call) => rate(call, vote),
  };
}

export const goodCommand = voteCommand("good", "up", "👍");
export const badCommand = voteCommand("bad", "down", "👎");

async function rate({ where, actor, name, ctx }: CommandCall, vote: Vote) {
  if (!ctx.feedback) return { kind: "reply" as const, text: FEEDBACK_COMMAND_REPLIES.unavailable };
  const answer = await ctx.feedback.vote({
    vote,
    actor,
    ...(name !== undefined ? { name } : {}),
    platform: where.platform,
    where,
  });
  return { kind: "reply" as const, text: answer.text };
}
