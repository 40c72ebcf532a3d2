import type { Actor } from "../core/commands/index.ts";
import type { ChannelRuntime } from "./channel.ts";
import { accessCommand } from "./commands/access.ts";
import { agentCommand } from "./commands/agent.ts";
import { approveCommand, denyCommand } from "./commands/approve.ts";
import { badCommand, goodCommand } from "./commands/feedback.ts";
import { helpCommand } from "./commands/help.ts";
import { modelCommand } from "./commands/model.ts";
import { newCommand } from "./commands/new.ts";
import { queueCommand } from "./commands/queue.ts";
import {
  type ChatCommand,
  type ChatCommandContext,
  type ChatTextOutcome,
  type CommandOrigin,
  findCommand,
  mayUse,
  parseCommandLine,
} from "./commands/registry.ts";
import { scheduleCommand } from "./commands/schedule.ts";
import { skillCommand, skillsCommand } from "./commands/skills.ts";
import { stopCommand } from "./commands/stop.ts";
import { toolsCommand } from "./commands/tools.ts";
import { usageCommand } from "./commands/usage.ts";

export type { ChatCommandContext, ChatTextOutcome } from "./commands/registry.ts";

/** Every channel's chat commands, in `/help`'s order. */
export const CHAT_COMMANDS: readonly ChatCommand[] = Object.freeze([
  helpCommand,
  newCommand,
  stopCommand,
  approveCommand,
  denyCommand,
  goodCommand,
  badCommand,
  usageCommand,
  modelCommand,
  queueCommand,
  agentCommand,
  toolsCommand,
  skillsCommand,
  skillCommand,
  scheduleCommand,
  accessCommand,
]);

/**
 * What a channel may offer the chat commands beyond the skills sources and
 * permissions (`/stop` needs stopTurn, `/approve` approvals...), by name:
 * each is passed on when the channel has it, and a command whose service
 * is missing says so.
 */
const COMMAND_SERVICES = [
  "skills",
  "stopTurn",
  "admit",
  "approvals",
  "feedback",
  "queueBehaviour",
  "schedules",
  "directory",
] as const satisfies readonly (keyof ChannelRuntime)[];

/** The chat commands' services a channel has, as {@link COMMAND_SERVICES} names them. */
export type CommandServices = Partial<Pick<ChannelRuntime, (typeof COMMAND_SERVICES)[number]>>;

/** What the chat commands use of a channel's runtime. */
export type CommandRuntime = Pick<ChannelRuntime, "sources" | "permissions"> & CommandServices;

/** The services `from` has, and no key for one it has not. */
export function commandServices(from: CommandServices): CommandServices {
  const present: Record<string, unknown> = {};
  for (const name of COMMAND_SERVICES) if (from[name]) present[name] = from[name];
  return present as CommandServices;
}

/** The command context of a channel's runtime, as the config says now. */
export function chatContextOf(runtime: CommandRuntime): ChatCommandContext {
  return {
    sources: runtime.sources,
    policy: runtime.permissions(),
    ...commandServices(runtime),
  };
}

/** Where a line was typed, and by whom (the inbound message is one). */
export type ChatLineOrigin = CommandOrigin;

/**
 * Every channel's text commands in one place: a line that starts with a
 * registered command (`/new`, `!usage`, `/tools@BotName off x`) is answered
 * by it; anything else is a message for the model, which must first pass
 * the channel's own admission check, if it has one, or is answered with
 * the refusal instead of being queued (the access gate's `meter`, which
 * every channel runs next, checks the limits and token budgets). A command the person may not use
 * is answered as such, never sent to the model.
 */
export async function routeChatText(
  text: string,
  where: ChatLineOrigin,
  actor: Actor | (() => Promise<Actor>),
  ctx: ChatCommandContext,
  commands: readonly ChatCommand[] = CHAT_COMMANDS,
): Promise<ChatTextOutcome> {
  const line = text.trim();
  const typed = parseCommandLine(line);
  const command = typed ? findCommand(commands, typed.name) : undefined;
  let outcome: ChatTextOutcome = { kind: "message", text };
  if (typed && command) {
    const who = typeof actor === "function" ? await actor() : actor;
    if (!mayUse(who, command.audience, ctx.policy)) {
      return {
        kind: "reply",
        text: `/${command.name} is for the bot's ${command.audience}. /help lists what you can use here.`,
      };
    }
    outcome = await command.run({
      line,
      args: typed.args,
      where,
      actor: who,
      ...(where.userName ? { name: where.userName } : {}),
      ctx,
      commands,
    });
  }
  return outcome.kind === "message" ? admitMessage(outcome, where, ctx) : outcome;
}

/**
 * The channel's own admission check (`admit`, when it has one) for a
 * message on its way to the queue: the refusal's text replaces it when it
 * says no. Limits and token budgets are the gate's (`meter`), counted in
 * `switchyard_refused_total`. Channels with their own command UI
 * (Telegram's keyboards) call it for the messages they produce.
 */
export async function admitMessage(
  outcome: ChatTextOutcome,
  where: ChatLineOrigin,
  ctx: ChatCommandContext,
): Promise<ChatTextOutcome> {
  if (where.user === undefined || !ctx.admit) return outcome;
  const refusal = await ctx.admit({ ...where, user: where.user });
  return refusal ? { kind: "reply", text: refusal.text } : outcome;
}
