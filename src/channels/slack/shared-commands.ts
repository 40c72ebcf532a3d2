import type { App } from "@slack/bolt";
import { chatContextOf, routeChatText } from "../chat-commands.ts";
import { ephemeral, onSlashCommand, type SlackCommandDeps } from "./slash-command.ts";

/** The commands every platform shares, as Slack slash commands (deploy/slack/manifest.yaml lists them). */
export const SLACK_SHARED_COMMANDS: readonly string[] = Object.freeze([
  "/help",
  "/new",
  "/stop",
  "/usage",
  "/model",
  "/queue",
]);

/**
 * Registers the shared commands: each answers as the typed command does in
 * a message (the same registry), privately to the person, once per
 * delivery (the ledger takes a redelivered command as done).
 */
export function registerSharedSlackCommands(app: App, deps: SlackCommandDeps): void {
  for (const command of SLACK_SHARED_COMMANDS) {
    onSlashCommand(app, deps, command, async ({ line, userId, channelId, team }) => {
      // Slash commands come from a channel, never a thread: the channel is the conversation.
      const where = {
        platform: "slack",
        workspace: team,
        channel: channelId,
        conversation: channelId,
        user: userId,
      };
      const outcome = await routeChatText(
        line,
        where,
        () => deps.actor(userId),
        chatContextOf(deps.runtime),
      );
      return ephemeral(outcome.text);
    });
  }
}
