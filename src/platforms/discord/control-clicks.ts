import { type ButtonInteraction, MessageFlags } from "discord.js";
import { splitMessage } from "../../core/delivery/split.ts";
import { answerApprovalClick } from "../../ingress/approval-click.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { answerFeedbackClick } from "../../ingress/feedback-desk.ts";
import { isFeedbackPayload } from "../../ports/feedback.ts";
import { actorOf } from "./interactions.ts";

const MESSAGE_MAX = 2_000;
/** Enough parts for the longest "Show arguments" answer (12,000 characters, fences repeated). */
const MAX_PARTS = 8;

/**
 * A click on a button under a posted message (components.ts `controlRows`):
 * an approval's Approve, Deny, "Approve for this conversation" or "Show
 * arguments", or an answer's 👍 / 👎. Deferred as an ephemeral reply at once (Discord's 3 s), then
 * the decision goes to the approvals desk and the reply, seen by the
 * clicker alone, says what came of it. The request message is left to the
 * worker, which edits it once with the outcome and drops its buttons. The
 * router has already taken the interaction id, so a replayed interaction
 * is answered once.
 */
export async function answerControlClick(
  i: ButtonInteraction,
  runtime: ChannelRuntime,
): Promise<void> {
  await i.deferReply({ flags: MessageFlags.Ephemeral });
  const name = i.user.globalName ?? i.user.username;
  const click = {
    payload: i.customId,
    actor: actorOf(i),
    ...(name ? { name } : {}),
    platform: "discord",
  };
  const reply = isFeedbackPayload(i.customId)
    ? await answerFeedbackClick(runtime.feedback, click)
    : await answerApprovalClick(runtime.approvals, click);
  // The full arguments run to 12,000 characters: the first part in the reply, the rest after it.
  const [first = "", ...rest] = splitMessage(reply.text, MESSAGE_MAX).slice(0, MAX_PARTS);
  await i.editReply({ content: first, allowedMentions: { parse: [] } });
  for (const part of rest) {
    await i.followUp({
      content: part,
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  }
}
