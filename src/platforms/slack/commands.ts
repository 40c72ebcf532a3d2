import type { App } from "@slack/bolt";
import { z } from "zod";
import type { Actor } from "../../core/commands/index.ts";
import { LIST_DEFAULT_SCOPE, type ListName } from "../../core/commands/panel.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import { answerListCommand } from "../../ingress/commands/list-command.ts";
import {
  type ActionResult,
  parseSkillsAction,
  parseToolsAction,
  type SkillsAction,
  type ToolsAction,
} from "./block-actions.ts";
import { type BlockMessage, listBlocks, SKILLS_ACTION, TOOLS_ACTION } from "./blocks.ts";
import { takeClickOnce } from "./click-once.ts";
import { describe } from "./errors.ts";
import { installationTeam } from "./payload.ts";
import { ephemeral, onSlashCommand, type SlackCommandDeps } from "./slash-command.ts";

export type { SlackCommandDeps } from "./slash-command.ts";

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
  onSlashCommand(app, deps, list.command, async ({ line, userId, channelId, team }) => {
    // Slash commands come from a channel, never a thread: the channel is the conversation.
    const result = await list.run(
      line,
      address(team, channelId, deps.account),
      await deps.actor(userId),
      deps,
    );
    return result.list
      ? { response_type: "ephemeral", ...result.list(list.defaultScope) }
      : ephemeral(result.text);
  });
  registerClicks(app, deps, list);
}

/** A click on a list: switches an item or turns the page, and shows the list again in place. */
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
    const where = address(installationTeam(body, deps.teamId()), channel, deps.account);
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
    await takeClickOnce(deps, body, apply, (reason) =>
      tell(`That click could not be applied just now (${reason}). Try again in a moment.`),
    );
  });
}

function address(team: string, channel: string, account?: string): ConversationAddress {
  return {
    platform: "slack",
    ...(account ? { account } : {}),
    workspace: team,
    channel,
    conversation: channel,
  };
}

/** The list blocks, with what the click did as a last line. */
function withNote(blocks: BlockMessage["blocks"], note: string): BlockMessage["blocks"] {
  if (note === "") return blocks;
  return [
    ...blocks,
    { type: "context", elements: [{ type: "mrkdwn", text: note.slice(0, 2900) }] },
  ];
}
