import type { Api, Context } from "grammy";
import type { User } from "grammy/types";
import { answerApprovalClick, isRefusal } from "../../ingress/approval-click.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { answerFeedbackClick } from "../../ingress/feedback-desk.ts";
import { isFeedbackPayload } from "../../ports/feedback.ts";
import type { ChatAdmins } from "./admins.ts";
import { renderParts } from "./outbound.ts";
import { sendReply } from "./replies.ts";

/** What answering a press needs from the channel (the ingress deps are one). */
export interface ControlPressDeps {
  readonly runtime: ChannelRuntime;
  readonly api: () => Api;
  readonly admins: ChatAdmins;
  /** An error for a log line, the token redacted. */
  readonly describe: (error: unknown) => string;
}

/** Telegram shows at most 200 characters of a callback query's answer. */
const ANSWER_MAX = 200;

/**
 * A press on a key under a posted message (keyboards.ts `controlKeyboard`):
 * an approval's Approve, Deny, "Approve for this conversation" or "Show
 * arguments", or an answer's 👍 / 👎 (a vote, told to the presser alone). The decision goes to the approvals desk, then the query is
 * answered with what came of it, which only the presser sees (a refusal as
 * an alert they must dismiss). "Show arguments" has more to say than a
 * callback answer holds, so the full arguments are sent as a reply to the
 * request, where everyone who sees the request sees them. The request
 * itself is left to the worker, which edits it once and drops its keys.
 * The update ledger has already taken the update, so a redelivered press
 * is answered once.
 */
export async function takeControlPress(ctx: Context, deps: ControlPressDeps): Promise<void> {
  const query = ctx.callbackQuery;
  if (!query?.data) return;
  const warn = (what: string) => (error: unknown) =>
    deps.runtime.logger.warn(what, { error: deps.describe(error) });
  const message = query.message;
  // Telegram always names the presser; a payload that does not decides nothing (rule 11).
  const from = query.from as User | undefined;
  // An inaccessible message (date 0) still names its chat, which is all an approval needs.
  const actor =
    message && from
      ? await deps.admins.actor(message.chat, from)
      : { id: `telegram:${from?.id ?? "unknown"}`, isPlatformAdmin: false };
  const name = [from?.first_name, from?.last_name].filter(Boolean).join(" ");
  if (isFeedbackPayload(query.data)) {
    const vote = await answerFeedbackClick(deps.runtime.feedback, {
      payload: query.data,
      actor,
      ...(name !== "" ? { name } : {}),
      platform: "telegram",
    });
    // "What was wrong?" is a question to read, not a toast: an alert the voter dismisses.
    const alert =
      vote.kind === "expired" ||
      vote.kind === "failed" ||
      (vote.kind === "recorded" && vote.ask === true);
    await ctx
      .answerCallbackQuery({ text: clip(vote.text, ANSWER_MAX), show_alert: alert })
      .catch(warn("a Telegram button press could not be answered"));
    return;
  }
  const reply = await answerApprovalClick(deps.runtime.approvals, {
    payload: query.data,
    actor,
    ...(name !== "" ? { name } : {}),
    platform: "telegram",
  });
  if (reply.kind === "details" && message) {
    await ctx
      .answerCallbackQuery({ text: "The full arguments are in the reply below." })
      .catch(warn("a Telegram button press could not be answered"));
    for (const html of renderParts(reply.text)) {
      await sendReply(deps.api(), message, html).catch(
        warn("a request's full arguments could not be sent"),
      );
    }
    return;
  }
  await ctx
    .answerCallbackQuery({ text: clip(reply.text, ANSWER_MAX), show_alert: isRefusal(reply) })
    .catch(warn("a Telegram button press could not be answered"));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
