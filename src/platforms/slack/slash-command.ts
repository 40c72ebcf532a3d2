import type { App } from "@slack/bolt";
import { z } from "zod";
import type { Actor } from "../../core/commands/index.ts";
import { isTooLong, tooLongReply } from "../../core/conversation.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { type CommandOrigin, commandRefusal } from "../../ingress/command-gate.ts";
import type { EventLedger } from "../../ingress/event-ledger.ts";
import { describe } from "./errors.ts";
import { commandEventId, installationTeam } from "./payload.ts";

/** What the command UI needs from the channel: who someone is, and where the bot lives. */
export interface SlackCommandDeps {
  readonly runtime: ChannelRuntime;
  readonly actor: (userId: string) => Promise<Actor>;
  /** The bot's own team (`auth.test`), the installation when a payload does not name it. */
  readonly teamId: () => string;
  /** The app's account of `slack.accounts`; unset for the only or default app. */
  readonly account?: string;
  /** Which commands and clicks were taken, so a redelivered one runs once. */
  readonly ledger: () => EventLedger;
  /** The person's display name (what `/approve` records as who decided). */
  readonly name?: (userId: string) => Promise<string | undefined>;
}

/** One slash command as it arrived: the whole typed line, who sent it, from where. */
export interface SlashRequest {
  /** `/tools off lookup`: the command and its text. */
  readonly line: string;
  readonly userId: string;
  readonly channelId: string;
  /** The installation's team (a guest's command in a shared channel counts there). */
  readonly team: string;
}

const id = z.string().min(1).max(256);
const commandSchema = z.object({
  user_id: id,
  channel_id: id,
  text: z.string().optional().catch(undefined),
});

/**
 * Answers `command` with what `answer` makes of it, in the ack (so the
 * answer is private to the person), once per delivery: a redelivered
 * command (the same trigger_id) is acked with nothing, its person saw the
 * first answer. A line over the text limit is refused with why; a failure
 * is logged and answered with a "try again".
 */
export function onSlashCommand(
  app: App,
  deps: SlackCommandDeps,
  command: string,
  answer: (request: SlashRequest) => Promise<Record<string, unknown>>,
): void {
  app.command(command, async ({ body, ack }) => {
    const c = commandSchema.safeParse(body);
    if (!c.success) return ack(ephemeral(`${command} arrived without a user or a channel.`));
    let answered = false;
    const eventId = commandEventId(body);
    const run = async () => {
      const line = `${command} ${c.data.text ?? ""}`.trim();
      const request = {
        line,
        userId: c.data.user_id,
        channelId: c.data.channel_id,
        team: installationTeam(body, deps.teamId()),
      };
      const refusal = isTooLong(line)
        ? tooLongReply(line.length)
        : await commandRefusal(deps.runtime, originOf(request, eventId, deps.account), line);
      const reply = refusal !== undefined ? ephemeral(refusal) : await answer(request);
      answered = true;
      await ack(reply);
    };
    try {
      if (!eventId) await run();
      else if (!(await deps.ledger().take(eventId, run))) await ack();
    } catch (error) {
      deps.runtime.logger.warn("a Slack slash command failed", { command, error: describe(error) });
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

/** A slash command as the access gate reads it: a DM's channel id starts with D. */
function originOf(
  request: SlashRequest,
  eventId: string | undefined,
  account: string | undefined,
): CommandOrigin {
  return {
    platform: "slack",
    ...(account ? { account } : {}),
    workspace: request.team,
    channel: request.channelId,
    conversation: request.channelId,
    user: request.userId,
    kind: request.channelId.startsWith("D") ? "dm" : "group",
    eventId: eventId ?? `${request.line.split(" ")[0]}:${request.channelId}:${request.userId}`,
  };
}

export function ephemeral(text: string): Record<string, unknown> {
  return { response_type: "ephemeral", text };
}
