import { SlashCommandBuilder } from "discord.js";
import { CHAT_SCOPES } from "../../core/availability/scopes.ts";
import { sharedCommandDefinitions } from "./shared-commands.ts";

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

/** `on` or `off` for one item, in a scope. */
function switchSub(verb: "on" | "off", item: "tool" | "skill", hint: string) {
  return itemSub(verb, `Switch a ${item} ${verb}`, item, { required: true, scoped: true, hint });
}

/** `why` for one item: what decides it, in no scope of its own. */
function whySub(item: "tool" | "skill", description: string, hint: string) {
  return itemSub("why", description, item, { required: true, scoped: false, hint });
}

function scopeOption(o: Option): Option {
  return o
    .setName("scope")
    .setDescription(
      "Where the change applies (default: this conversation for tools, channel for skills)",
    )
    .addChoices(...CHAT_SCOPES.map((s) => ({ name: s, value: s })));
}

/** `/tools` and `/skills` as application commands with subcommands, the channel-neutral grammar underneath. */
export function commandDefinitions() {
  const tool = "Tool id, mcp:<server>, mcp or all";
  const tools = new SlashCommandBuilder()
    .setName("tools")
    .setDescription("Which tools the bot has here, and switch them on, off or ask")
    .addSubcommand((s) =>
      s.setName("list").setDescription("N of M tools available, each tool's state"),
    )
    .addSubcommand(switchSub("on", "tool", tool))
    .addSubcommand(switchSub("off", "tool", tool))
    .addSubcommand(
      itemSub("ask", "Keep a tool on, but approve each call first", "tool", {
        required: true,
        scoped: true,
        hint: tool,
      }),
    )
    .addSubcommand(
      itemSub("reset", "Let the shallower scopes decide again", "tool", {
        required: false,
        scoped: true,
        hint: "Tool id, or leave out for everything",
      }),
    )
    .addSubcommand(whySub("tool", "Why a tool is on, off or unavailable", "Tool id"))
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
    .addSubcommand(switchSub("on", "skill", skill))
    .addSubcommand(switchSub("off", "skill", skill))
    .addSubcommand(whySub("skill", "Why a skill is on or off", skill));
  return [tools.toJSON(), skills.toJSON(), ...sharedCommandDefinitions()];
}
