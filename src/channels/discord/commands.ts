import {
  type ApplicationCommandOptionChoiceData,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  MessageFlags,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type StringSelectMenuInteraction,
} from "discord.js";
import type { ConversationAddress } from "../../core/agent/inbound.ts";
import type { Actor } from "../../core/commands/index.ts";
import type { ChannelRuntime } from "../channel.ts";
import { handleSkillsCommand } from "../skills-command.ts";
import { handleToolsCommand } from "../tools-command.ts";
import { parseToolsClick, toolsComponents } from "./components.ts";

const SCOPES = ["conversation", "channel", "workspace", "global"] as const;
const MODES = ["full", "default", "minimal", "discover", "follow"] as const;

type Option = import("discord.js").SlashCommandStringOption;
type Sub = import("discord.js").SlashCommandSubcommandBuilder;

/** A subcommand naming one item (a tool or a skill), optionally with a scope. */
function itemSub(
  name: string,
  description: string,
  item: "tool" | "skill",
  opts: { required: boolean; scoped: boolean; hint: string },
) {
  return (s: Sub) => {
    s.setName(name)
      .setDescription(description)
      .addStringOption((o: Option) =>
        o.setName(item).setDescription(opts.hint).setRequired(opts.required).setAutocomplete(true),
      );
    if (opts.scoped) s.addStringOption(scopeOption);
    return s;
  };
}

function scopeOption(o: Option): Option {
  return o
    .setName("scope")
    .setDescription(
      "Where the change applies (default: this conversation for tools, channel for skills)",
    )
    .addChoices(...SCOPES.map((s) => ({ name: s, value: s })));
}

/** `/tools` and `/skills` as application commands with subcommands, the channel-neutral grammar underneath. */
export function commandDefinitions() {
  const tool = "Tool id, mcp:<server>, mcp or all";
  const tools = new SlashCommandBuilder()
    .setName("tools")
    .setDescription("Which tools the bot has here, and switch them on or off")
    .addSubcommand((s) =>
      s.setName("list").setDescription("N of M tools available, each tool's state"),
    )
    .addSubcommand(
      itemSub("on", "Switch a tool on", "tool", { required: true, scoped: true, hint: tool }),
    )
    .addSubcommand(
      itemSub("off", "Switch a tool off", "tool", { required: true, scoped: true, hint: tool }),
    )
    .addSubcommand(
      itemSub("reset", "Let the shallower scopes decide again", "tool", {
        required: false,
        scoped: true,
        hint: "Tool id, or leave out for everything",
      }),
    )
    .addSubcommand(
      itemSub("why", "Why a tool is on, off or unavailable", "tool", {
        required: true,
        scoped: false,
        hint: "Tool id",
      }),
    )
    .addSubcommand((s) =>
      s
        .setName("mode")
        .setDescription("How much of the tools ships in full")
        .addStringOption((o) =>
          o
            .setName("mode")
            .setDescription("Load mode")
            .setRequired(true)
            .addChoices(...MODES.map((m) => ({ name: m, value: m }))),
        )
        .addStringOption(scopeOption),
    );
  const skill = "Skill name";
  const skills = new SlashCommandBuilder()
    .setName("skills")
    .setDescription("Which skills the bot has here, and switch them on or off")
    .addSubcommand((s) => s.setName("list").setDescription("N of M skills available"))
    .addSubcommand(
      itemSub("on", "Switch a skill on", "skill", { required: true, scoped: true, hint: skill }),
    )
    .addSubcommand(
      itemSub("off", "Switch a skill off", "skill", { required: true, scoped: true, hint: skill }),
    )
    .addSubcommand(
      itemSub("why", "Why a skill is on or off", "skill", {
        required: true,
        scoped: false,
        hint: skill,
      }),
    );
  return [tools.toJSON(), skills.toJSON()];
}

/** Registers the commands in every guild the bot is in: a bulk overwrite, so repeating it changes nothing. */
export async function registerCommands(client: Client): Promise<void> {
  const body = commandDefinitions();
  await Promise.all([...client.guilds.cache.values()].map((guild) => guild.commands.set(body)));
}

type AnyInteraction =
  | ChatInputCommandInteraction
  | AutocompleteInteraction
  | ButtonInteraction
  | StringSelectMenuInteraction;

function whereOf(i: AnyInteraction): ConversationAddress {
  const channel = i.channelId ?? "";
  return { platform: "discord", workspace: i.guildId ?? "dm", channel, conversation: channel };
}

function actorOf(i: AnyInteraction): Actor {
  return {
    id: `discord:${i.user.id}`,
    isPlatformAdmin: Boolean(i.memberPermissions?.has(PermissionFlagsBits.ManageGuild)),
  };
}

/** The typed command a slash command stands for, in the channel-neutral grammar. */
export function commandText(i: ChatInputCommandInteraction): string {
  const sub = i.options.getSubcommand();
  const words = [`/${i.commandName}`, sub];
  for (const name of ["tool", "skill", "mode", "scope"]) {
    const value = i.options.getString(name);
    if (value) words.push(value);
  }
  return words.join(" ");
}

/** Answers a slash command within Discord's 3 s: the reply is ephemeral, for the person who asked. */
export async function answerCommand(
  i: ChatInputCommandInteraction,
  runtime: ChannelRuntime,
): Promise<void> {
  await i.deferReply({ flags: MessageFlags.Ephemeral });
  const text = commandText(i);
  const policy = runtime.permissions();
  if (i.commandName === "tools") {
    const result = await handleToolsCommand(text, whereOf(i), actorOf(i), policy, runtime.sources);
    const view = result.plan.kind === "reply" ? result.plan.view : undefined;
    await i.editReply({
      content: clip(result.text),
      ...(view?.kind === "list" ? { components: toolsComponents(view) } : {}),
    });
    return;
  }
  const result = await handleSkillsCommand(
    text,
    whereOf(i),
    actorOf(i),
    policy,
    runtime.sources,
    runtime.skills,
  );
  await i.editReply({ content: clip(result.text) });
}

/**
 * A click on the /tools message: picking a tool shows why it is in its state
 * with on/off buttons; a button switches it at the chosen scope; the message
 * is updated in place each time, within Discord's 3 s.
 */
export async function answerToolsClick(
  i: ButtonInteraction | StringSelectMenuInteraction,
  runtime: ChannelRuntime,
): Promise<void> {
  const click = parseToolsClick(i.customId, i.isStringSelectMenu() ? i.values : []);
  if (!click) return;
  await i.deferUpdate();
  const where = whereOf(i);
  const actor = actorOf(i);
  const run = (text: string) =>
    handleToolsCommand(text, where, actor, runtime.permissions(), runtime.sources);
  const note =
    click.kind === "switch"
      ? (await run(`/tools ${click.verb} ${click.tool} ${click.scope}`)).text
      : "";
  const why = (await run(`/tools why ${click.tool}`)).text;
  const list = await run("/tools");
  const view =
    list.plan.kind === "reply" && list.plan.view.kind === "list" ? list.plan.view : undefined;
  if (!view) return;
  await i.editReply({
    content: clip([note, why].filter(Boolean).join("\n\n")),
    components: toolsComponents(view, { tool: click.tool, scope: click.scope }),
  });
}

/**
 * Offers what the person may name: tool ids (and keys) for /tools, enabled
 * skills for `on`/`why` and all skills for `off`… limited to 25 by Discord.
 */
export async function answerAutocomplete(
  i: AutocompleteInteraction,
  runtime: ChannelRuntime,
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
    const { readConversationState, resolveConversationSkills } = await import(
      "../../workers/contract.ts"
    );
    const where = whereOf(i);
    const skills = resolveConversationSkills(
      runtime.sources,
      where,
      await readConversationState(runtime.sources, where),
    );
    // A disabled skill disappears from completions, except to switch it back on.
    const sub = i.options.getSubcommand();
    names = (sub === "on" ? skills.skills.map((s) => s.skill) : skills.enabled).map((s) => s.name);
  }
  const choices: ApplicationCommandOptionChoiceData<string>[] = names
    .filter((n) => n.toLowerCase().includes(typed))
    .slice(0, 25)
    .map((n) => ({ name: n, value: n }));
  await i.respond(choices);
}

function clip(text: string): string {
  return text.length <= 2_000 ? text : `${text.slice(0, 1_990)}\n…`;
}
