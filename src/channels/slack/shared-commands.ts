import type { App } from "@slack/bolt";
import { z } from "zod";
import { isTooLong, tooLongReply } from "../../core/agent/inbound.ts";
import { chatContextOf, routeChatText } from "../chat-commands.ts";
import type { SlackCommandDeps } from "./commands.ts";
import { describe } from "./errors.ts";
import { commandEventId, installationTeam } from "./payload.ts";

/** The commands every platform shares, as Slack slash commands (deploy/slack/manifest.yaml lists them). */
export const SLACK_SHARED_COMMANDS: readonly string[] = Object.freeze([
  "/help",
  "/new",
  "/stop",
  "/usage",
  "/model",
  "/queue",
]);

const id = z.string().min(1).max(256);
const commandSchema = z.object({
  user_id: id,
  channel_id: id,
  text: z.string().optional().catch(undefined),
});

/**
 * Registers the shared commands: each answers as the typed command does in
 * a message (the same registry), privately to the person, once per
 * delivery (the ledger takes a redelivered command as done).
 */
export function registerSharedSlackCommands(app: App, deps: SlackCommandDeps): void {
  for (const command of SLACK_SHARED_COMMANDS) {
    app.command(command, async ({ body, ack }) => {
      const c = commandSchema.safeParse(body);
      if (!c.success) return ack(ephemeral(`${command} arrived without a user or a channel.`));
      let answered = false;
      const run = async () => {
        const line = `${command} ${c.data.text ?? ""}`.trim();
        answered = true;
        if (isTooLong(line)) return ack(ephemeral(tooLongReply(line.length)));
        // Slash commands come from a channel, never a thread: the channel is the conversation.
        const where = {
          platform: "slack",
          workspace: installationTeam(body, deps.teamId()),
          channel: c.data.channel_id,
          conversation: c.data.channel_id,
          user: c.data.user_id,
        };
        const outcome = await routeChatText(
          line,
          where,
          () => deps.actor(c.data.user_id),
          chatContextOf(deps.runtime),
        );
        await ack(ephemeral(outcome.text));
      };
      const eventId = commandEventId(body);
      try {
        if (!eventId) await run();
        else if (!(await deps.ledger().take(eventId, run))) await ack();
      } catch (error) {
        deps.runtime.logger.warn("a Slack slash command failed", {
          command,
          error: describe(error),
        });
        if (!answered) {
          await ack(
            ephemeral(
              `${command} could not run just now (${describe(error)}). Try again in a moment.`,
            ),
          );
        }
      }
    });
  }
}

function ephemeral(text: string): Record<string, unknown> {
  return { response_type: "ephemeral", text };
}
