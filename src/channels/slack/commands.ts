import type { App } from "@slack/bolt";
import type { ConversationAddress } from "../../core/agent/inbound.ts";
import type { Actor, CommandPolicy } from "../../core/commands/index.ts";
import type { ChannelRuntime } from "../channel.ts";
import { handleSkillsCommand } from "../skills-command.ts";
import { handleToolsCommand } from "../tools-command.ts";
import {
  type ActionResult,
  parseSkillsAction,
  parseToolsAction,
  type SkillsAction,
  type ToolsAction,
} from "./block-actions.ts";
import {
  type BlockMessage,
  SKILLS_ACTION,
  skillsBlocks,
  TOOLS_ACTION,
  toolsBlocks,
} from "./blocks.ts";

/** What the command UI needs from the channel: who someone is, and where the bot lives. */
export interface SlackCommandDeps {
  readonly runtime: ChannelRuntime;
  readonly actor: (userId: string) => Promise<Actor>;
  readonly teamId: () => string;
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

const policyOf = (runtime: ChannelRuntime): CommandPolicy => runtime.permissions();

const TOOLS: ListCommand<ToolsAction> = {
  command: "/tools",
  actions: TOOLS_ACTION,
  defaultScope: "conversation",
  parse: parseToolsAction,
  run: async (text, where, actor, { runtime }) => {
    const result = await handleToolsCommand(text, where, actor, policyOf(runtime), runtime.sources);
    const view = result.plan.kind === "reply" ? result.plan.view : undefined;
    return view?.kind === "list"
      ? {
          text: result.text,
          list: (scope, page) =>
            toolsBlocks(view, { scope: scope as never, ...(page !== undefined ? { page } : {}) }),
        }
      : { text: result.text };
  },
  toggle: ({ command: { verb, key, scope } }) => `/tools ${verb} ${key} ${scope}`,
};

const SKILLS: ListCommand<SkillsAction> = {
  command: "/skills",
  actions: SKILLS_ACTION,
  defaultScope: "channel",
  parse: parseSkillsAction,
  run: async (text, where, actor, { runtime }) => {
    const result = await handleSkillsCommand(
      text,
      where,
      actor,
      policyOf(runtime),
      runtime.sources,
      runtime.skills,
    );
    const view = result.plan.kind === "reply" ? result.plan.view : undefined;
    return view?.kind === "list"
      ? {
          text: result.text,
          list: (scope, page) =>
            skillsBlocks(view, { scope: scope as never, ...(page !== undefined ? { page } : {}) }),
        }
      : { text: result.text };
  },
  toggle: ({ command: { verb, name, scope } }) => `/skills ${verb} ${name} ${scope}`,
};

/** Registers `/tools` and `/skills`, their buttons and selects. */
export function registerSlackCommands(app: App, deps: SlackCommandDeps): void {
  register(app, deps, TOOLS);
  register(app, deps, SKILLS);
}

function register<Action extends ToolsAction | SkillsAction>(
  app: App,
  deps: SlackCommandDeps,
  list: ListCommand<Action>,
): void {
  app.command(list.command, async ({ command: c, ack }) => {
    // Slash commands come from a channel, never a thread: the channel is the conversation.
    const where = address(c.team_id, c.channel_id);
    const result = await list.run(
      `${list.command} ${c.text ?? ""}`.trim(),
      where,
      await deps.actor(c.user_id),
      deps,
    );
    await ack(
      result.list
        ? { response_type: "ephemeral", ...result.list(list.defaultScope) }
        : { response_type: "ephemeral", text: result.text },
    );
  });

  app.action(list.actions, async ({ action, body, ack, respond }) => {
    await ack();
    const a = action as { action_id: string; value?: string; selected_option?: { value: string } };
    const parsed = list.parse(a.action_id, a.value ?? a.selected_option?.value ?? "");
    if (!parsed.ok) {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        text: parsed.error.message,
      });
      return;
    }
    const b = body as { user: { id: string }; team?: { id: string }; channel?: { id: string } };
    const where = address(b.team?.id ?? deps.teamId(), b.channel?.id ?? "");
    const actor = await deps.actor(b.user.id);
    const click = parsed.action;
    const scope = click.kind === "toggle" ? click.command.scope : click.scope;
    const note =
      click.kind === "toggle"
        ? (
            await list.run(
              list.toggle(click as Extract<Action, { kind: "toggle" }>),
              where,
              actor,
              deps,
            )
          ).text
        : "";
    const shown = await list.run(list.command, where, actor, deps);
    if (!shown.list) return;
    const blocks = shown.list(scope, click.page);
    await respond({
      replace_original: true,
      text: blocks.text,
      blocks: withNote(blocks.blocks, note),
    });
  });
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
