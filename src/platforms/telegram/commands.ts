import type { InlineKeyboardMarkup } from "grammy/types";
import type { Actor } from "../../core/commands/index.ts";
import { LIST_DEFAULT_SCOPE } from "../../core/commands/panel.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import {
  admitMessage,
  CHAT_COMMANDS,
  chatContextOf,
  routeChatText,
} from "../../ingress/chat-commands.ts";
import { helpText } from "../../ingress/commands/help.ts";
import { answerListCommand } from "../../ingress/commands/list-command.ts";
import { findCommand } from "../../ingress/commands/registry.ts";
import { planSkillCommand } from "../../ingress/commands/skills-command.ts";
import type { KeyboardPress } from "./callback-data.ts";
import { escapeHtml } from "./format.ts";
import { type KeyboardMessage, listKeyboard } from "./keyboards.ts";
import { type CommandMenu, skillForCommand } from "./menu.ts";

/** What the command UI needs from the channel. */
export interface TelegramCommandDeps {
  readonly runtime: ChannelRuntime;
  readonly menu: CommandMenu;
  /** The bot's first name, for /start. */
  readonly botName: string;
}

/** A command typed in chat, read: `/tools@bot off x` is `{ name: "tools", text: "/tools@bot off x" }`. */
export interface TypedCommand {
  readonly name: string;
  /** What follows the command, trimmed. */
  readonly rest: string;
  /** The whole message text. */
  readonly text: string;
}

/** What a message turned out to be. */
export type CommandOutcome =
  /** Answered on the spot (Telegram HTML, with buttons for a list); nothing goes to the model. */
  | { readonly kind: "reply"; readonly html: string; readonly keyboard?: InlineKeyboardMarkup }
  /** A message for the model: as typed, or a skill's instructions with the request. */
  | { readonly kind: "message"; readonly text: string };

/**
 * Answers the commands of a chat: `/tools` and `/skills` in the
 * channel-neutral grammar (a list comes with buttons), `/skill <name>` and
 * each skill's own command from the menu (`/meeting_notes summarize this`),
 * and `/start`. Anything else is a message for the model. The actor is
 * looked up only for a command, as it may cost a `getChatMember`.
 */
export async function answerChatCommand(
  command: TypedCommand | undefined,
  text: string,
  where: ConversationAddress & { readonly user?: string },
  actor: () => Promise<Actor>,
  deps: TelegramCommandDeps,
): Promise<CommandOutcome> {
  const outcome = await answerTyped(command, text, where, actor, deps);
  if (outcome.kind === "reply") return outcome;
  // A message for the model passes the same checks as on every platform (the token budgets).
  const admitted = await admitMessage(outcome, where, chatContextOf(deps.runtime));
  return admitted.kind === "reply" ? { kind: "reply", html: escapeHtml(admitted.text) } : admitted;
}

async function answerTyped(
  command: TypedCommand | undefined,
  text: string,
  where: ConversationAddress,
  actor: () => Promise<Actor>,
  deps: TelegramCommandDeps,
): Promise<CommandOutcome> {
  const { runtime } = deps;
  if (command === undefined) return { kind: "message", text };
  switch (command.name) {
    case "start": {
      const help = await helpText({
        line: command.text,
        args: command.rest,
        where,
        actor: await actor(),
        ctx: chatContextOf(runtime),
        commands: CHAT_COMMANDS,
      });
      return {
        kind: "reply",
        html: escapeHtml(`${greeting(deps.botName)}

${help}`),
      };
    }
    case "tools":
    case "skills": {
      const list = command.name;
      const answer = await answerListCommand(list, command.text, where, await actor(), runtime);
      if (answer.skillsChanged !== undefined) await refreshMenus(deps, where, answer.skillsChanged);
      if (answer.panel === undefined) return { kind: "reply", html: escapeHtml(answer.text) };
      const message = listKeyboard(answer.panel, { scope: LIST_DEFAULT_SCOPE[list] });
      return { kind: "reply", html: message.html, keyboard: message.keyboard };
    }
    case "skill":
      return invokeSkill(command.text, where, deps);
    default: {
      if (findCommand(CHAT_COMMANDS, command.name)) {
        // /new, /help, /usage, /model, /queue, /stop, /access: the same commands as every platform's.
        const shared = await routeChatText(command.text, where, actor, chatContextOf(runtime));
        return shared.kind === "reply" ? { kind: "reply", html: escapeHtml(shared.text) } : shared;
      }
      const skill = skillForCommand(await deps.menu.skillsOf(where.workspace), command.name);
      if (!skill) return { kind: "message", text };
      return invokeSkill(`/skill ${skill.name} ${command.rest}`, where, deps);
    }
  }
}

/** What a press did: a short answer for the button, and the list to show in its place. */
export interface PressOutcome {
  /** For `answerCallbackQuery`: at most 200 characters. */
  readonly toast: string;
  /** A refusal is shown as an alert the person must dismiss. */
  readonly alert: boolean;
  /** Renders the list after the press, to edit the message with. */
  render(): Promise<KeyboardMessage | undefined>;
}

/**
 * A press on a list's keyboard: a switch runs the typed command it stands
 * for (`/tools off web_search channel`), with the same permission checks,
 * before the toast is shown; the list is rendered afterwards, so the
 * callback query is answered without waiting for it.
 */
export async function answerPress(
  press: KeyboardPress,
  where: ConversationAddress,
  actor: Actor,
  deps: TelegramCommandDeps,
): Promise<PressOutcome> {
  const { runtime } = deps;
  const { list } = press;
  let toast = "";
  let alert = false;
  if (press.kind === "switch") {
    const text = `/${list} ${press.verb} ${press.id} ${press.scope}`;
    const answer = await answerListCommand(list, text, where, actor, runtime);
    toast = answer.text;
    alert = answer.refused;
    if (answer.skillsChanged !== undefined) await refreshMenus(deps, where, answer.skillsChanged);
  }
  const options = {
    scope: press.scope,
    page: press.page,
    ...(toast === "" ? {} : { note: toast }),
  };
  return {
    toast: clip(toast, 200),
    alert,
    render: async () => {
      const { panel } = await answerListCommand(list, `/${list}`, where, actor, runtime);
      return panel === undefined ? undefined : listKeyboard(panel, options);
    },
  };
}

async function invokeSkill(
  text: string,
  where: ConversationAddress,
  deps: TelegramCommandDeps,
): Promise<CommandOutcome> {
  const plan = await planSkillCommand(text, where, deps.runtime.sources);
  return plan.kind === "refused"
    ? { kind: "reply", html: escapeHtml(plan.reply) }
    : { kind: "message", text: plan.text };
}

/**
 * After a skill switch: the chat's menu, and the default menu when the
 * global scope changed. A menu that cannot be set costs only freshness.
 */
async function refreshMenus(
  deps: TelegramCommandDeps,
  where: ConversationAddress,
  /** The scope that changed: a global change reaches every chat's menu. */
  scope: string,
): Promise<void> {
  const refreshes = [deps.menu.refresh(where.workspace)];
  if (scope === "global") refreshes.push(deps.menu.refresh());
  const results = await Promise.allSettled(refreshes);
  for (const result of results) {
    if (result.status === "rejected") {
      deps.runtime.logger.warn("the Telegram command menu could not be updated", {
        error: (result.reason as Error)?.message,
      });
    }
  }
}

function greeting(botName: string): string {
  return `Hi, I'm ${botName}. Write to me here, or mention me in a group, and I'll answer.`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
