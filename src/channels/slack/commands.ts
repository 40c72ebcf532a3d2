import type { App } from "@slack/bolt";
import { z } from "zod";
import { type ConversationAddress, isTooLong, tooLongReply } from "../../core/agent/inbound.ts";
import type { Actor } from "../../core/commands/index.ts";
import { LIST_DEFAULT_SCOPE, type ListName } from "../../core/commands/panel.ts";
import type { ChannelRuntime } from "../channel.ts";
import type { EventLedger } from "../event-ledger.ts";
import { answerListCommand } from "../list-command.ts";
import {
  type ActionResult,
  parseSkillsAction,
  parseToolsAction,
  type SkillsAction,
  type ToolsAction,
} from "./block-actions.ts";
import { type BlockMessage, listBlocks, SKILLS_ACTION, TOOLS_ACTION } from "./blocks.ts";
import { describe } from "./errors.ts";
import { actionEventId, commandEventId, installationTeam } from "./payload.ts";

/** What the command UI needs from the channel: who someone is, and where the bot lives. */
export interface SlackCommandDeps {
  readonly runtime: ChannelRuntime;
  readonly actor: (userId: string) => Promise<Actor>;
  /** The bot's own team (`auth.test`), the installation when a payload does not name it. */
  readonly teamId: () => string;
  /** Which commands and clicks were taken, so a redelivered one runs once. */
  readonly ledger: () => EventLedger;
}

/**
 * One list command (`/tools` or `/skills`) as Block Kit: the typed command
 * answers with the list (or the command's reply), and a click on the list
 * switches an item or changes the scope or page, updating the message in
 * place with what the click did underneath.
 */
interface ListCommand<Action extends ToolsAction | SkillsAction> {
  readonly command: "/tools" | "/skills";
  readonly actions: RegExp;
  readonly defaultScope: string;
  readonly parse: (actionId: string, value: string) => ActionResult<Action>;
  /** Runs a typed command; `list` is the view when the reply is the list. */
  readonly run: (
    text: string,
    where: ConversationAddress,
    actor: Actor,
    deps: SlackCommandDeps,
  ) => Promise<{ text: string; list?: (scope: string, page?: number) => BlockMessage }>;
  /** The typed command a toggle click stands for. */
  readonly toggle: (action: Extract<Action, { kind: "toggle" }>) => string;
}

/** Runs a typed `/tools` or `/skills` command; a list answer renders its panel as blocks. */
function runList(list: ListName): ListCommand<ToolsAction | SkillsAction>["run"] {
  return async (text, where, actor, { runtime }) => {
    const answer = await answerListCommand(list, text, where, actor, runtime);
    const { panel } = answer;
    if (panel === undefined) return { text: answer.text };
    const blocks = (scope: string, page?: number) =>
      listBlocks(panel, { scope: scope as never, ...(page !== undefined ? { page } : {}) });
    return { text: answer.text, list: blocks };
  };
}

const TOOLS: ListCommand<ToolsAction> = {
  command: "/tools",
  actions: TOOLS_ACTION,
  defaultScope: LIST_DEFAULT_SCOPE.tools,
  parse: parseToolsAction,
  run: runList("tools"),
  toggle: ({ command: { verb, key, scope } }) => `/tools ${verb} ${key} ${scope}`,
};

const SKILLS: ListCommand<SkillsAction> = {
  command: "/skills",
  actions: SKILLS_ACTION,
  defaultScope: LIST_DEFAULT_SCOPE.skills,
  parse: parseSkillsAction,
  run: runList("skills"),
  toggle: ({ command: { verb, name, scope } }) => `/skills ${verb} ${name} ${scope}`,
};

const LISTS = [TOOLS, SKILLS] as const;

/** The slash commands this app answers. */
export const SLACK_COMMANDS: readonly string[] = LISTS.map((list) => list.command);

/** Registers `/tools` and `/skills`, their buttons and selects. */
export function registerSlackCommands(app: App, deps: SlackCommandDeps): void {
  for (const list of LISTS) register(app, deps, list as ListCommand<ToolsAction | SkillsAction>);
}

const id = z.string().min(1).max(256);
const commandSchema = z.object({
  user_id: id,
  channel_id: id,
  text: z.string().optional().catch(undefined),
});
const clickSchema = z.object({
  user: z.object({ id }),
  channel: z.object({ id }).optional().catch(undefined),
  container: z.object({ channel_id: id }).optional().catch(undefined),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: z.string().optional().catch(undefined),
        selected_option: z.object({ value: z.string() }).optional().catch(undefined),
      }),
    )
    .min(1),
});

function register<Action extends ToolsAction | SkillsAction>(
  app: App,
  deps: SlackCommandDeps,
  list: ListCommand<Action>,
): void {
  registerCommand(app, deps, list);
  registerClicks(app, deps, list);
}

/** The typed command: answers with the list, or the command's reply, once per delivery. */
function registerCommand<Action extends ToolsAction | SkillsAction>(
  app: App,
  deps: SlackCommandDeps,
  list: ListCommand<Action>,
): void {
  app.command(list.command, async ({ body, ack }) => {
    const c = commandSchema.safeParse(body);
    if (!c.success) return ack(ephemeral(`${list.command} arrived without a user or a channel.`));
    let answered = false;
    const answer = async (reply: Record<string, unknown>) => {
      answered = true;
      await ack(reply);
    };
    const run = async () => {
      const line = `${list.command} ${c.data.text ?? ""}`.trim();
      if (isTooLong(line)) return answer(ephemeral(tooLongReply(line.length)));
      // Slash commands come from a channel, never a thread: the channel is the conversation.
      const where = address(installationTeam(body, deps.teamId()), c.data.channel_id);
      const result = await list.run(line, where, await deps.actor(c.data.user_id), deps);
      await answer(
        result.list
          ? { response_type: "ephemeral", ...result.list(list.defaultScope) }
          : ephemeral(result.text),
      );
    };
    const eventId = commandEventId(body);
    try {
      // A delivery of a command taken before answers nothing: its person saw the first answer.
      if (!eventId) await run();
      else if (!(await deps.ledger().take(eventId, run))) await ack();
    } catch (error) {
      deps.runtime.logger.warn("a Slack slash command failed", {
        command: list.command,
        error: describe(error),
      });
      if (!answered) {
        await ack(
          ephemeral(
            `${list.command} could not run just now (${describe(error)}). Try again in a moment.`,
          ),
        );
      }
    }
  });
}

/** A click on the list: switches an item or moves the scope or page, updating the message in place. */
function registerClicks<Action extends ToolsAction | SkillsAction>(
  app: App,
  deps: SlackCommandDeps,
  list: ListCommand<Action>,
): void {
  app.action(list.actions, async ({ body, ack, respond }) => {
    await ack();
    // What the person sees beside the message; a response_url that fails costs only this note.
    const tell = async (text: string) => {
      await respond?.({ response_type: "ephemeral", replace_original: false, text }).catch(
        (error: unknown) => {
          deps.runtime.logger.warn("could not answer a Slack click", { error: describe(error) });
        },
      );
    };
    const b = clickSchema.safeParse(body);
    const [a] = b.data?.actions ?? [];
    const channel = b.data?.channel?.id ?? b.data?.container?.channel_id;
    if (!b.success || !a || !channel) {
      return tell("That click arrived incomplete. Run the command again for a fresh message.");
    }
    const parsed = list.parse(a.action_id, a.value ?? a.selected_option?.value ?? "");
    if (!parsed.ok) return tell(parsed.error.message);
    const click = parsed.action;
    const where = address(installationTeam(body, deps.teamId()), channel);
    const apply = async () => {
      const actor = await deps.actor(b.data.user.id);
      const scope = click.kind === "toggle" ? click.command.scope : click.scope;
      const toggle =
        click.kind === "toggle"
          ? list.toggle(click as Extract<Action, { kind: "toggle" }>)
          : undefined;
      const note = toggle ? (await list.run(toggle, where, actor, deps)).text : "";
      const shown = await list.run(list.command, where, actor, deps);
      if (!shown.list) return;
      const blocks = shown.list(scope, click.page);
      await respond?.({
        replace_original: true,
        text: blocks.text,
        blocks: withNote(blocks.blocks, note),
      });
    };
    const eventId = actionEventId(body);
    try {
      // A click taken before (Slack's redelivery, a second ingress process) changes nothing again.
      if (eventId) await deps.ledger().take(eventId, apply);
      else await apply();
    } catch (error) {
      deps.runtime.logger.warn("a Slack button click failed", { error: describe(error) });
      await tell(
        `That click could not be applied just now (${describe(error)}). Try again in a moment.`,
      );
    }
  });
}

function ephemeral(text: string): Record<string, unknown> {
  return { response_type: "ephemeral", text };
}

function address(team: string, channel: string): ConversationAddress {
  return { platform: "slack", workspace: team, channel, conversation: channel };
}

/** The list blocks, with what the click did as a last line. */
function withNote(blocks: BlockMessage["blocks"], note: string): BlockMessage["blocks"] {
  if (note === "") return blocks;
  return [
    ...blocks,
    { type: "context", elements: [{ type: "mrkdwn", text: note.slice(0, 2900) }] },
  ];
}
