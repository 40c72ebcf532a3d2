import {
  type ApplicationCommandOptionChoiceData,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
  type Client,
  MessageFlags,
  PermissionFlagsBits,
  SlashCommandBuilder,
} from "discord.js";
import type { ConversationAddress } from "../../core/agent/inbound.ts";
import type { Actor } from "../../core/commands/index.ts";
import type { ChannelRuntime } from "../channel.ts";
import { handleSkillsCommand } from "../skills-command.ts";
import { handleToolsCommand } from "../tools-command.ts";

const SCOPES = ["conversation", "channel", "workspace", "global"] as const;
const MODES = ["full", "default", "minimal", "discover", "follow"] as const;

/** `/tools` and `/skills` as application commands with subcommands, the channel-neutral grammar underneath. */
export function commandDefinitions() {
  const scope = (o: import("discord.js").SlashCommandStringOption) =>
    o
      .setName("scope")
      .setDescription(
        "Where the change applies (default: this conversation for tools, channel for skills)",
      )
      .addChoices(...SCOPES.map((s) => ({ name: s, value: s })));
  const tools = new SlashCommandBuilder()
    .setName("tools")
    .setDescription("Which tools the bot has here, and switch them on or off")
    .addSubcommand((s) =>
      s.setName("list").setDescription("N of M tools available, each tool's state"),
    )
    .addSubcommand((s) =>
      s
        .setName("on")
        .setDescription("Switch a tool on")
        .addStringOption((o) =>
          o
            .setName("tool")
            .setDescription("Tool id, mcp:<server>, mcp or all")
            .setRequired(true)
            .setAutocomplete(true),
        )
        .addStringOption(scope),
    )
    .addSubcommand((s) =>
      s
        .setName("off")
        .setDescription("Switch a tool off")
        .addStringOption((o) =>
          o
            .setName("tool")
            .setDescription("Tool id, mcp:<server>, mcp or all")
            .setRequired(true)
            .setAutocomplete(true),
        )
        .addStringOption(scope),
    )
    .addSubcommand((s) =>
      s
        .setName("reset")
        .setDescription("Let the shallower scopes decide again")
        .addStringOption((o) =>
          o
            .setName("tool")
            .setDescription("Tool id, or leave out for everything")
            .setAutocomplete(true),
        )
        .addStringOption(scope),
    )
    .addSubcommand((s) =>
      s
        .setName("why")
        .setDescription("Why a tool is on, off or unavailable")
        .addStringOption((o) =>
          o.setName("tool").setDescription("Tool id").setRequired(true).setAutocomplete(true),
        ),
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
        .addStringOption(scope),
    );
  const skills = new SlashCommandBuilder()
    .setName("skills")
    .setDescription("Which skills the bot has here, and switch them on or off")
    .addSubcommand((s) => s.setName("list").setDescription("N of M skills available"))
    .addSubcommand((s) =>
      s
        .setName("on")
        .setDescription("Switch a skill on")
        .addStringOption((o) =>
          o.setName("skill").setDescription("Skill name").setRequired(true).setAutocomplete(true),
        )
        .addStringOption(scope),
    )
    .addSubcommand((s) =>
      s
        .setName("off")
        .setDescription("Switch a skill off")
        .addStringOption((o) =>
          o.setName("skill").setDescription("Skill name").setRequired(true).setAutocomplete(true),
        )
        .addStringOption(scope),
    )
    .addSubcommand((s) =>
      s
        .setName("why")
        .setDescription("Why a skill is on or off")
        .addStringOption((o) =>
          o.setName("skill").setDescription("Skill name").setRequired(true).setAutocomplete(true),
        ),
    );
  return [tools.toJSON(), skills.toJSON()];
}

/** Registers the commands in every guild the bot is in: a bulk overwrite, so repeating it changes nothing. */
export async function registerCommands(client: Client): Promise<void> {
  const body = commandDefinitions();
  await Promise.all([...client.guilds.cache.values()].map((guild) => guild.commands.set(body)));
}

function whereOf(i: ChatInputCommandInteraction | AutocompleteInteraction): ConversationAddress {
  const channel = i.channelId ?? "";
  return { platform: "discord", workspace: i.guildId ?? "dm", channel, conversation: channel };
}

function actorOf(i: ChatInputCommandInteraction | AutocompleteInteraction): Actor {
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
  const reply =
    i.commandName === "tools"
      ? (await handleToolsCommand(text, whereOf(i), actorOf(i), policy, runtime.sources)).text
      : (
          await handleSkillsCommand(
            text,
            whereOf(i),
            actorOf(i),
            policy,
            runtime.sources,
            runtime.skills,
          )
        ).text;
  await i.editReply({ content: clip(reply) });
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
