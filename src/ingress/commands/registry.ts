import type { QueueBehaviour, QueueMode } from "../../core/agent/queue-mode.ts";
import type { Actor, CommandPolicy } from "../../core/commands/index.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { AdmitCheck } from "../../ports/admission.ts";
import type { Approvals } from "../../ports/approvals.ts";
import type { ConversationDirectory } from "../../ports/directory.ts";
import type { Feedback } from "../../ports/feedback.ts";
import type { ScheduleDesk } from "../../ports/schedules.ts";
import type { StopTurn } from "../../ports/turn-control.ts";
import type { ContractSources } from "../../turn/contract.ts";
import type { ReloadableSkills } from "./skills-command.ts";

export type { AdmitCheck, MessageSubject, Refusal } from "../../ports/admission.ts";

/** What a line of chat turned out to be. */
export type ChatTextOutcome =
  /** A command, answered on the spot; nothing goes to the model. */
  | { readonly kind: "reply"; readonly text: string }
  /** A message for the model: the text as typed, or a skill's instructions with the request. */
  | { readonly kind: "message"; readonly text: string };

/** What every command can reach: the conversation's sources and the process's ports. */
export interface ChatCommandContext {
  readonly sources: ContractSources;
  readonly policy: CommandPolicy;
  readonly skills?: ReloadableSkills;
  /** For `/stop`; unset where this process cannot signal turns. */
  readonly stopTurn?: StopTurn;
  /** A check of its own a message for the model must pass; the gate checks limits and budgets. */
  readonly admit?: AdmitCheck;
  /** For `/approve` and `/deny`; unset where this process takes no approval decisions. */
  readonly approvals?: Approvals;
  /** For `/good` and `/bad`; unset where this process takes no votes. */
  readonly feedback?: Feedback;
  /** For `/schedule`; unset where this process cannot make schedules. */
  readonly schedules?: ScheduleDesk;
  /** The platform's channels, for `/schedule add ... in #channel`; unset where it has none. */
  readonly directory?: ConversationDirectory;
  /** The clock, for usage periods, budget resets and schedules' next runs; default `Date.now`. */
  readonly now?: () => number;
  /** The worker's queue behaviour (the environment over a chat choice over the config), for `/queue`. */
  readonly queueBehaviour?: (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;
}

/** Who may use a command (or one of its forms): from least to most trusted. */
export type Audience = "anyone" | "admins" | "owners";

/** One line of `/help`: the form and what it does, shown to those who may use it. */
export interface HelpLine {
  readonly usage: string;
  readonly summary: string;
  readonly audience: Audience;
}

/** Where a line was typed, and by whom (the inbound message is one). */
export type CommandOrigin = ConversationAddress & {
  readonly user?: string;
  /** The sender's display name, when the platform gave one (`/approve` records it). */
  readonly userName?: string;
  /** The thread it was typed in, where the platform has threads. */
  readonly thread?: string;
  /** A DM with the bot or a group conversation, as the channel saw it. */
  readonly kind?: "dm" | "group";
};

/** One typed command, as its handler gets it. */
export interface CommandCall {
  /** The whole line, trimmed: `/tools off web_search`. */
  readonly line: string;
  /** What follows the command word, trimmed. */
  readonly args: string;
  readonly where: CommandOrigin;
  readonly actor: Actor;
  /** The sender's display name, when the platform gave one. */
  readonly name?: string;
  readonly ctx: ChatCommandContext;
  /** Every command registered here, for `/help`. */
  readonly commands: readonly ChatCommand[];
}

/**
 * A chat command: its name and aliases (typed with `/` or `!`), who may use
 * it, its `/help` lines, and a handler that answers on the spot or turns
 * the line into a message for the model. Another feature adds a command by
 * adding one of these to the list in chat-commands.ts.
 *
 * @example
 * const ping: ChatCommand = {
 *   name: "ping",
 *   audience: "anyone",
 *   help: [{ usage: "/ping", summary: "Checks the bot is here.", audience: "anyone" }],
 *   run: async () => ({ kind: "reply", text: "pong" }),
 * };
 */
export interface ChatCommand {
  /** Lowercase, without the `/`. */
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Who may use it at all; a form for fewer people says so in its help line and refuses in `run`. */
  readonly audience: Audience;
  readonly help: readonly HelpLine[];
  run(call: CommandCall): Promise<ChatTextOutcome>;
}

/** A command line read: `/tools@bot off x` is `{ name: "tools", target: "bot", args: "off x" }`. */
export interface CommandLine {
  readonly name: string;
  /** The bot a group chat addressed it to (`@BotName`), when given. */
  readonly target?: string;
  readonly args: string;
}

const LINE = /^[/!]([A-Za-z][A-Za-z0-9_-]{0,63})(?:@(\S+))?(?:\s+([\s\S]*))?$/;

/**
 * Reads a command word at the start of a line: `/name` or `!name` (for
 * where a platform keeps `/` for itself), with `@BotName` as group chats
 * add it. Anything else is undefined: a message for the model.
 */
export function parseCommandLine(text: string): CommandLine | undefined {
  const match = LINE.exec(text.trim());
  if (!match) return undefined;
  const [, name = "", target, args = ""] = match;
  return { name: name.toLowerCase(), ...(target ? { target } : {}), args: args.trim() };
}

/** The command a name or alias stands for. */
export function findCommand(
  commands: readonly ChatCommand[],
  name: string,
): ChatCommand | undefined {
  const wanted = name.toLowerCase();
  return commands.find((c) => c.name === wanted || c.aliases?.includes(wanted));
}

/** Whether the actor is among an audience, by the config's `permissions:` and the platform's admins. */
export function mayUse(actor: Actor, audience: Audience, policy: CommandPolicy): boolean {
  const owner = policy.owners.includes(actor.id);
  if (audience === "owners") return owner;
  if (audience === "admins")
    return owner || actor.isPlatformAdmin || policy.admins.includes(actor.id);
  return true;
}

/** A refusal of a form only admins may use, in the words the other commands use. */
export function adminsOnly(what: string): ChatTextOutcome {
  return {
    kind: "reply",
    text: `Only workspace admins or the bot's configured admins can ${what}. Ask one of them (/help says who).`,
  };
}
