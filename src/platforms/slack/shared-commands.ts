import type { App } from "@slack/bolt";
import { CHAT_COMMANDS, chatContextOf, routeChatText } from "../../ingress/chat-commands.ts";
import { findCommand, parseCommandLine } from "../../ingress/commands/registry.ts";
import {
  ephemeral,
  onSlashCommand,
  type SlackCommandDeps,
  type SlashRequest,
} from "./slash-command.ts";

/**
 * The one slash command the manifests register for the shared commands:
 * `/switchyard new`, `/switchyard usage`; alone, `/switchyard help`. One
 * name of the app's own, where bare `/help` or `/new` would clash with other
 * apps' commands across the workspace.
 */
export const SLACK_SWITCHYARD_COMMAND = "/switchyard";

/**
 * The commands every platform shares, as bare Slack slash commands. The
 * app answers them all, but the manifests register them only when the
 * operator uncomments them (deploy/slack/manifest.yaml).
 */
export const SLACK_SHARED_COMMANDS: readonly string[] = Object.freeze([
  "/help",
  "/new",
  "/stop",
  "/usage",
  "/model",
  "/queue",
  "/agent",
  "/approve",
  "/deny",
  "/schedule",
]);

/**
 * Registers the shared commands, bare and under `/switchyard`: each answers
 * as the typed command does in a message (the same registry), privately to
 * the person, once per delivery (the ledger takes a redelivered command as
 * done).
 */
export function registerSharedSlackCommands(app: App, deps: SlackCommandDeps): void {
  for (const command of SLACK_SHARED_COMMANDS) {
    onSlashCommand(app, deps, command, (request) => answerLine(request.line, request, deps));
  }
  onSlashCommand(app, deps, SLACK_SWITCHYARD_COMMAND, (request) => {
    // "/switchyard new --all" is "/new --all"; "/switchyard" alone is "/help".
    const rest =
      request.line.slice(SLACK_SWITCHYARD_COMMAND.length).trim().replace(/^[/!]/, "") || "help";
    const typed = parseCommandLine(`/${rest}`);
    if (!typed || !findCommand(CHAT_COMMANDS, typed.name)) {
      const word = rest.split(/\s/)[0] ?? rest;
      return Promise.resolve(
        ephemeral(
          `${SLACK_SWITCHYARD_COMMAND} ${word} is not a command I know. ${SLACK_SWITCHYARD_COMMAND} help lists the ones you can use here.`,
        ),
      );
    }
    const answer = answerLine(`/${rest}`, request, deps);
    if (typed.name !== "help") return answer;
    // The list names the commands as typed (/new); say how they are sent from here.
    return answer.then((reply) => ({
      ...reply,
      text: `${reply.text}\n\nAs a slash command: ${SLACK_SWITCHYARD_COMMAND} new, ${SLACK_SWITCHYARD_COMMAND} usage and so on; in a thread or DM, type !new.`,
    }));
  });
}

/** One command line, answered as the typed command would be. */
async function answerLine(
  line: string,
  { userId, channelId, team }: SlashRequest,
  deps: SlackCommandDeps,
): Promise<Record<string, unknown>> {
  const userName = await deps.name?.(userId);
  // Slash commands come from a channel, never a thread: the channel is the conversation.
  const where = {
    platform: "slack",
    ...(deps.account ? { account: deps.account } : {}),
    workspace: team,
    channel: channelId,
    conversation: channelId,
    // Slack's DM ids start with D: who may change what there (a /schedule's scope) reads it.
    kind: channelId.startsWith("D") ? ("dm" as const) : ("group" as const),
    user: userId,
    ...(userName ? { userName } : {}),
  };
  const outcome = await routeChatText(
    line,
    where,
    () => deps.actor(userId),
    chatContextOf(deps.runtime),
  );
  return ephemeral(outcome.text);
}
