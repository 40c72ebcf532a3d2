import type { App } from "@slack/bolt";
import { z } from "zod";
import { answerApprovalClick } from "../../ingress/approval-click.ts";
import { answerFeedbackClick } from "../../ingress/feedback-desk.ts";
import { isFeedbackPayload } from "../../ports/feedback.ts";
import { takeClickOnce } from "./click-once.ts";
import { CONTROL_ACTION } from "./control-blocks.ts";
import { describe } from "./errors.ts";
import { toMrkdwn } from "./format.ts";
import type { SlackCommandDeps } from "./slash-command.ts";

const id = z.string().min(1).max(256);
const clickSchema = z.object({
  user: z.object({ id, name: z.string().optional().catch(undefined) }),
  channel: z.object({ id }).optional().catch(undefined),
  container: z
    .object({ channel_id: id, thread_ts: z.string().optional().catch(undefined) })
    .optional()
    .catch(undefined),
  actions: z.array(z.object({ value: z.string().optional().catch(undefined) })).min(1),
});

/**
 * Clicks on the buttons under a posted message (control-blocks.ts): an
 * approval's Approve, Deny, "Approve for this conversation" and "Show
 * arguments", and an answer's 👍 / 👎 (Slack's feedback buttons). Acked at once (Slack's 3 s), then the decision goes to the
 * approvals desk and the clicker alone is told the answer, as an ephemeral
 * message through the click's `response_url` (or `chat.postEphemeral` when
 * a payload has none). The request message is left to the worker, which
 * edits it once with the outcome. A click Slack delivers again (or a
 * second ingress process receives) is answered once: the ledger takes it.
 */
export function registerSlackControls(app: App, deps: SlackCommandDeps): void {
  app.action(CONTROL_ACTION, async ({ body, ack, respond, client }) => {
    await ack();
    const b = clickSchema.safeParse(body);
    const channel = b.data?.channel?.id ?? b.data?.container?.channel_id;
    const user = b.data?.user.id;
    const tell = async (text: string) => {
      const mrkdwn = toMrkdwn(text);
      try {
        if (respond) {
          await respond({ response_type: "ephemeral", replace_original: false, text: mrkdwn });
        } else if (channel && user) {
          const thread = b.data?.container?.thread_ts;
          await client.chat.postEphemeral({
            channel,
            user,
            text: mrkdwn,
            ...(thread ? { thread_ts: thread } : {}),
          });
        }
      } catch (error) {
        deps.runtime.logger.warn("could not answer a Slack click", { error: describe(error) });
      }
    };
    if (!b.success || !user) {
      return tell("That click arrived incomplete, so nothing was decided. Try the button again.");
    }
    const run = async () => {
      const [actor, name] = await Promise.all([deps.actor(user), deps.name?.(user)]);
      const payload = b.data.actions[0]?.value ?? "";
      const click = {
        payload,
        actor,
        ...((name ?? b.data.user.name) ? { name: (name ?? b.data.user.name) as string } : {}),
        platform: "slack",
      };
      const reply = isFeedbackPayload(payload)
        ? await answerFeedbackClick(deps.runtime.feedback, click)
        : await answerApprovalClick(deps.runtime.approvals, click);
      await tell(reply.text);
    };
    // When the ledger itself failed (Redis away), the click was not taken, and may be tried again.
    await takeClickOnce(deps, body, run, (reason) =>
      tell(
        `That click could not be taken just now (${reason}), so nothing was decided. Try again in a moment.`,
      ),
    );
  });
}
