import type { Api } from "grammy";
import type { BotCommand } from "grammy/types";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { Skill, SkillResolution } from "../../core/skills/index.ts";
import {
  type ContractSources,
  readConversationState,
  resolveConversationSkills,
} from "../../turn/contract.ts";

/** The menu's words for the commands every chat has, by command, in the menu's order. */
const BASE_MENU: Readonly<Record<string, string>> = {
  help: "What I can do here, and who the admins are",
  new: "Start a fresh conversation (/new --all also forgets tool choices)",
  stop: "Stop what I'm doing here",
  usage: "Tokens and turns used here today and this month",
  model: "The model I use here (admins can switch it)",
  queue: "How I take messages sent while I work",
  agent: "Which agent answers here (admins can switch it)",
  approve: "Let a tool call that waits run: /approve <id> [conversation]",
  deny: "Refuse a tool call that waits: /deny <id>",
  tools: "See the bot's tools here and switch them on or off",
  skills: "See the bot's skills here and switch them on or off",
  skill: "Use a skill for one message: /skill <name> [request]",
  schedule: 'Prompts I run on a timing: /schedule add "<when>" <prompt>, /schedule list',
};

/** The commands every chat has, before the skills. */
export const BASE_COMMANDS: readonly BotCommand[] = Object.freeze(
  Object.entries(BASE_MENU).map(([command, description]) => ({ command, description })),
);
/** Commands Switchyard answers itself; no skill may take their names. */
export const RESERVED_COMMANDS: ReadonlySet<string> = new Set([
  ...BASE_COMMANDS.map((c) => c.command),
  "start",
  "access",
  "reset",
]);
/** Telegram takes at most 100 commands per scope. */
const MAX_COMMANDS = 100;

/**
 * A skill's name as a Telegram command: lowercase letters, digits and "_",
 * at most 32 characters (`meeting-notes` -> `meeting_notes`). Undefined for
 * a name that would take a reserved command.
 */
export function skillCommandName(name: string): string | undefined {
  const command = name
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .slice(0, 32);
  return RESERVED_COMMANDS.has(command) ? undefined : command;
}

/** The command menu for a chat: the base commands, then each enabled skill, by name. */
export function menuCommands(resolution: SkillResolution): BotCommand[] {
  const commands = [...BASE_COMMANDS];
  const taken = new Set(commands.map((c) => c.command));
  for (const skill of resolution.enabled) {
    const command = skillCommandName(skill.name);
    if (command === undefined || taken.has(command) || commands.length >= MAX_COMMANDS) continue;
    taken.add(command);
    commands.push({ command, description: describe(skill) });
  }
  return commands;
}

/** The skill a typed command names, among every skill of the chat (a disabled one is refused by name). */
export function skillForCommand(resolution: SkillResolution, command: string): Skill | undefined {
  return resolution.skills.find((s) => skillCommandName(s.skill.name) === command)?.skill;
}

/** A skill's description for the menu: 1 to 256 characters, one line. */
function describe(skill: Skill): string {
  const line = skill.description.replace(/\s+/g, " ").trim();
  const text = line === "" ? `Use the ${skill.name} skill` : line;
  return text.length <= 256 ? text : `${text.slice(0, 255)}…`;
}

/**
 * Keeps Telegram's command menu current (`setMyCommands`): the default scope
 * at start, with the skills every chat has, and one chat's scope when its
 * skills change, so a skill switched off disappears from that chat's menu.
 * A change to the global scope refreshes the default. A menu that did not
 * change is not sent again, and one menu's sets go out one after another,
 * each reading the skills when its turn comes, so the last state wins.
 */
export class CommandMenu {
  readonly #sent = new Map<string, string>();
  /** Per menu, the set in flight (or waiting): the next one starts when it ends. */
  readonly #setting = new Map<string, Promise<void>>();

  constructor(
    private readonly api: () => Api,
    private readonly sources: ContractSources,
  ) {}

  /** The skills a chat has, switched as its scopes say. */
  async skillsOf(chat: string | undefined): Promise<SkillResolution> {
    const where = address(chat);
    return resolveConversationSkills(
      this.sources,
      where,
      await readConversationState(this.sources, where),
    );
  }

  /** Sets the menu of one chat, or the default menu when `chat` is undefined. */
  refresh(chat?: string): Promise<void> {
    const key = chat ?? "default";
    const before = this.#setting.get(key) ?? Promise.resolve();
    const set = before.catch(() => {}).then(() => this.#set(chat, key));
    this.#setting.set(key, set);
    const forget = () => {
      if (this.#setting.get(key) === set) this.#setting.delete(key);
    };
    set.then(forget, forget);
    return set;
  }

  async #set(chat: string | undefined, key: string): Promise<void> {
    const commands = menuCommands(await this.skillsOf(chat));
    const body = JSON.stringify(commands);
    if (this.#sent.get(key) === body) return;
    await this.api().setMyCommands(
      commands,
      chat === undefined ? {} : { scope: { type: "chat", chat_id: chat } },
    );
    this.#sent.set(key, body);
  }
}

/**
 * The address a chat's skills resolve at. The default menu reads no chat's
 * switches: `*` is no chat id Telegram gives.
 */
function address(chat: string | undefined): ConversationAddress {
  const id = chat ?? "*";
  return { platform: "telegram", workspace: id, channel: id, conversation: id };
}
