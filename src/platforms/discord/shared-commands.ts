import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  SlashCommandBuilder,
} from "discord.js";
import { QUEUE_MODES } from "../../core/agent/queue-mode.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { chatContextOf, routeChatText } from "../../ingress/chat-commands.ts";
import { actorOf, whereOf } from "./interactions.ts";

/** The commands every platform shares, besides /tools and /skills, as application commands. */
export const SHARED_COMMAND_NAMES: readonly string[] = Object.freeze([
  "help",
  "new",
  "stop",
  "usage",
  "model",
  "queue",
  "agent",
  "approve",
  "deny",
  "schedule",
]);

const SCOPES = ["conversation", "channel"] as const;
/** An agent can also be bound for a whole server. */
const AGENT_SCOPES = [...SCOPES, "workspace"] as const;

/** Their definitions: each option stands for a word of the typed command. */
export function sharedCommandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  const scope = (o: import("discord.js").SlashCommandStringOption) =>
    o
      .setName("scope")
      .setDescription("Where the change applies (default: this conversation)")
      .addChoices(...SCOPES.map((s) => ({ name: s, value: s })));
  const requestId = (o: import("discord.js").SlashCommandStringOption) =>
    o
      .setName("id")
      .setDescription("The request's id, as the request shows it")
      .setRequired(true)
      .setMinLength(12)
      .setMaxLength(12);
  return [
    new SlashCommandBuilder()
      .setName("help")
      .setDescription("What I can do here, and who the admins are"),
    new SlashCommandBuilder()
      .setName("new")
      .setDescription("Start a fresh conversation")
      .addBooleanOption((o) =>
        o.setName("all").setDescription("Also forget this conversation's tool choices"),
      ),
    new SlashCommandBuilder().setName("stop").setDescription("Stop what I'm doing here"),
    new SlashCommandBuilder()
      .setName("usage")
      .setDescription("Tokens and turns used here today and this month"),
    new SlashCommandBuilder()
      .setName("model")
      .setDescription("The model I use here; admins can switch it")
      .addStringOption((o) => o.setName("name").setDescription("A configured model, or default"))
      .addStringOption(scope),
    new SlashCommandBuilder()
      .setName("queue")
      .setDescription("How I take messages sent while I work; admins can change it")
      .addStringOption((o) =>
        o
          .setName("mode")
          .setDescription("The queue mode")
          .addChoices(...[...QUEUE_MODES, "default"].map((m) => ({ name: m, value: m }))),
      )
      .addStringOption(scope),
    new SlashCommandBuilder()
      .setName("agent")
      .setDescription("Which agent answers here, and why; admins can switch it")
      .addStringOption((o) => o.setName("name").setDescription("An agent's id, or reset"))
      .addStringOption((o) =>
        o
          .setName("scope")
          .setDescription("Where the switch applies (default: this conversation)")
          .addChoices(...AGENT_SCOPES.map((s) => ({ name: s, value: s }))),
      ),
    new SlashCommandBuilder()
      .setName("approve")
      .setDescription("Let a tool call that waits for approval run")
      .addStringOption(requestId)
      .addBooleanOption((o) =>
        o.setName("conversation").setDescription("Also keep the tool on in this conversation"),
      ),
    new SlashCommandBuilder()
      .setName("deny")
      .setDescription("Refuse a tool call that waits for approval")
      .addStringOption(requestId),
    new SlashCommandBuilder()
      .setName("schedule")
      .setDescription("Prompts I run on a timing: add, list, pause, resume, remove")
      .addStringOption((o) =>
        o
          .setName("args")
          .setDescription(
            'As typed after /schedule: add "weekdays 09:00" <prompt>, list, pause <id>',
          )
          .setMaxLength(2_000),
      ),
  ].map((b) => b.toJSON());
}

/** The typed command an interaction stands for: `/model gpt-4.1 channel`, `/new --all`. */
export function sharedCommandText(i: ChatInputCommandInteraction): string {
  const words = [`/${i.commandName}`];
  if (i.options.getBoolean("all")) words.push("--all");
  for (const name of ["id", "name", "mode", "scope", "args"]) {
    const value = i.options.getString(name);
    if (value) words.push(value);
  }
  if (i.options.getBoolean("conversation")) words.push("conversation");
  return words.join(" ");
}

/** Answers a shared command the way a typed one is answered, privately to the person. */
export async function answerSharedCommand(
  i: ChatInputCommandInteraction,
  runtime: ChannelRuntime,
  account?: string,
): Promise<void> {
  await i.deferReply({ flags: MessageFlags.Ephemeral });
  const outcome = await routeChatText(
    sharedCommandText(i),
    { ...whereOf(i, account), user: i.user.id, userName: i.user.globalName ?? i.user.username },
    actorOf(i),
    chatContextOf(runtime),
  );
  await i.editReply({ content: outcome.text.slice(0, 2_000) });
}
