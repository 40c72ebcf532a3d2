import {
  type ApplicationCommandOptionChoiceData,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  MessageFlags,
  PermissionFlagsBits,
  type StringSelectMenuInteraction,
} from "discord.js";
import type { Actor } from "../../core/commands/index.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { answerListCommand } from "../../ingress/commands/list-command.ts";
import { readConversationState, resolveConversationSkills } from "../../turn/contract.ts";
import { clip, type ListSpec, listComponents, listText } from "./components.ts";
import { DEFAULT_UI_SCOPE, type ListKind, parseListClick, resolveItem } from "./custom-id.ts";

type AnyInteraction =
  | ChatInputCommandInteraction
  | AutocompleteInteraction
  | ButtonInteraction
  | StringSelectMenuInteraction;

const MESSAGE_MAX = 2_000;

/** An interaction that names no channel: there is no conversation to act on. */
export class DiscordInteractionError extends Error {
  override readonly name = "DiscordInteractionError";
}

export function whereOf(i: AnyInteraction, account?: string): ConversationAddress {
  const channel = i.channelId;
  if (!channel) {
    throw new DiscordInteractionError(
      `Interaction ${i.id} names no channel (neither channel nor channel_id), so /${"commandName" in i ? i.commandName : "tools"} has no conversation to act on.`,
    );
  }
  return {
    platform: "discord",
    ...(account ? { account } : {}),
    workspace: i.guildId ?? "dm",
    channel,
    conversation: channel,
  };
}

/** Manage Server makes a platform admin, as for messages. */
export function actorOf(i: AnyInteraction): Actor {
  return {
    id: `discord:${i.user.id}`,
    isPlatformAdmin: Boolean(i.memberPermissions?.has(PermissionFlagsBits.ManageGuild)),
  };
}

/**
 * The typed command a slash command stands for, in the channel-neutral
 * grammar. Without a subcommand (an old registration, or a client that sends
 * the bare command) it is the bare command: the list.
 */
export function commandText(i: ChatInputCommandInteraction): string {
  const sub = i.options.getSubcommand(false);
  const words = [`/${i.commandName}`, ...(sub ? [sub] : [])];
  for (const name of ["tool", "skill", "mode", "scope"]) {
    const value = i.options.getString(name);
    if (value) words.push(value);
  }
  return words.join(" ");
}

/** A command's reply: its text, and the list when the reply is the list. */
interface Shown {
  readonly text: string;
  readonly list?: ListSpec;
}

/**
 * Runs a typed `/tools` or `/skills` command with the same permission
 * checks as anywhere else: a click is just the command it stands for.
 */
async function run(
  list: ListKind,
  text: string,
  i: AnyInteraction,
  runtime: ChannelRuntime,
  account: string | undefined,
): Promise<Shown> {
  const answer = await answerListCommand(list, text, whereOf(i, account), actorOf(i), runtime);
  return answer.panel ? { text: answer.text, list: answer.panel } : { text: answer.text };
}

/**
 * Answers a slash command within Discord's 3 s: the reply is ephemeral, for
 * the person who asked; a list comes with its select, scope and page controls.
 * The router (interaction-router.ts) answers instead if this throws or hangs.
 */
export async function answerCommand(
  i: ChatInputCommandInteraction,
  runtime: ChannelRuntime,
  /** The bot account of `discord.accounts` the interaction came to; unset for the only one. */
  account?: string,
): Promise<void> {
  await i.deferReply({ flags: MessageFlags.Ephemeral });
  const list: ListKind = i.commandName === "tools" ? "tools" : "skills";
  const shown = await run(list, commandText(i), i, runtime, account);
  if (!shown.list) {
    await i.editReply({ content: clip(shown.text, MESSAGE_MAX) });
    return;
  }
  const at = { scope: DEFAULT_UI_SCOPE[list], page: 0 };
  await i.editReply({
    content: listText(shown.list, at),
    components: listComponents(shown.list, at),
  });
}

/**
 * A click on a `/tools` or `/skills` message: picking an item shows why it
 * is in its state with on/off buttons; a button switches it at the chosen
 * scope (refused, as the typed command would be, without the permission);
 * the scope select and page buttons move the view. The message is updated
 * in place each time, within Discord's 3 s.
 */
export async function answerListClick(
  i: ButtonInteraction | StringSelectMenuInteraction,
  runtime: ChannelRuntime,
  account?: string,
): Promise<void> {
  const parsed = parseListClick(i.customId, i.isStringSelectMenu() ? i.values : []);
  if (!parsed.ok) {
    await i.reply({ content: parsed.error.message, flags: MessageFlags.Ephemeral });
    return;
  }
  const click = parsed.click;
  const { list } = click;
  await i.deferUpdate();
  const before = await run(list, `/${list}`, i, runtime, account);
  if (!before.list) return;
  const ids = before.list.entries.map((e) => e.id);
  const ref = "item" in click ? click.item : undefined;
  const item = ref ? resolveItem(ref, ids) : undefined;
  if (ref && item === undefined) {
    const at = { scope: click.scope, page: click.page };
    await i.editReply({
      content: clip(
        `That ${list === "tools" ? "tool" : "skill"} is no longer in the list; pick again.\n\n${listText(before.list, at)}`,
        MESSAGE_MAX,
      ),
      components: listComponents(before.list, at),
    });
    return;
  }
  const note =
    click.kind === "switch"
      ? (await run(list, `/${list} ${click.verb} ${item} ${click.scope}`, i, runtime, account)).text
      : "";
  const after = click.kind === "switch" ? await run(list, `/${list}`, i, runtime, account) : before;
  const spec = after.list ?? before.list;
  const at = { scope: click.scope, page: click.page, picked: item };
  const why =
    item === undefined ? "" : (await run(list, `/${list} why ${item}`, i, runtime, account)).text;
  await i.editReply({
    content:
      item === undefined
        ? listText(spec, at)
        : clip([note, why].filter(Boolean).join("\n\n"), MESSAGE_MAX),
    components: listComponents(spec, at),
  });
}

/**
 * Offers what the person may name: tool ids (and keys) for /tools, every
 * skill for `/skills on` and `why` and the enabled ones for `off`, at most
 * 25 (Discord's limit), those containing what was typed.
 */
export async function answerAutocomplete(
  i: AutocompleteInteraction,
  runtime: ChannelRuntime,
  account?: string,
): Promise<void> {
  const typed = i.options.getFocused().toLowerCase();
  let names: string[];
  if (i.commandName === "tools") {
    names = [
      "all",
      "mcp",
      ...runtime.sources.registry.families(),
      ...runtime.sources.registry.list().map((t) => t.id),
    ];
  } else {
    const where = whereOf(i, account);
    const skills = resolveConversationSkills(
      runtime.sources,
      where,
      await readConversationState(runtime.sources, where),
    );
    // Switching off offers only what is on; `on` and `why` offer every skill, disabled ones too.
    const sub = i.options.getSubcommand(false);
    names = (sub === "off" ? skills.enabled : skills.skills.map((s) => s.skill)).map((s) => s.name);
  }
  const choices: ApplicationCommandOptionChoiceData<string>[] = names
    .filter((n) => n.toLowerCase().includes(typed))
    .slice(0, 25)
    .map((n) => ({ name: n, value: n }));
  await i.respond(choices);
}
