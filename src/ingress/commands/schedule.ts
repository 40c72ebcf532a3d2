import {
  type Actor,
  type CommandPolicy,
  parseScheduleCommand,
  planScheduleCommand,
  type ScheduleCommand,
  ScheduleCommandError,
  type SchedulePlan,
} from "../../core/commands/index.ts";
import { mayChange } from "../../core/commands/permissions.ts";
import { ScheduleInputError } from "../../core/schedules/index.ts";
import type { ConversationDirectory } from "../../ports/directory.ts";
import type { ChatCommand, CommandCall } from "./registry.ts";

/**
 * `/schedule`: recurring and one-time prompts the bot gives itself in a
 * conversation, as the person who made them. The grammar and the
 * permissions are `planScheduleCommand`'s; this finds a named channel
 * through the platform's directory, reads the schedules, applies the plan
 * to the schedule desk and answers.
 */
export const scheduleCommand: ChatCommand = {
  name: "schedule",
  aliases: ["schedules"],
  audience: "anyone",
  help: [
    {
      usage: '/schedule add "<when>" <prompt> [in #channel|here]',
      summary: 'Runs a prompt on a timing ("weekdays 09:00 Europe/Berlin", "every 2h"), as you.',
      audience: "anyone",
    },
    {
      usage: "/schedule list|pause|resume|remove [id]",
      summary: "The schedules here and yours, and changing one; /schedule help has the rest.",
      audience: "anyone",
    },
  ],
  run: async (call) => ({ kind: "reply", text: await answerSchedule(call) }),
};

async function answerSchedule({ args, where, actor, ctx }: CommandCall): Promise<string> {
  const desk = ctx.schedules;
  if (desk === undefined) return "Schedules are not available in this process.";
  const user = where.user;
  if (user === undefined) return "I can't tell who is asking, so I can't schedule anything.";
  let command: ScheduleCommand;
  try {
    command = parseScheduleCommand(args);
  } catch (error) {
    if (error instanceof ScheduleCommandError) return error.message;
    throw error;
  }
  if (command.kind === "add" && command.target.kind === "channel" && ctx.directory) {
    const found = await findChannel(
      command,
      ctx.directory,
      where.workspace,
      user,
      actor,
      ctx.policy,
    );
    if (typeof found === "string") return found;
    command = found;
  }
  const [records, newId] = await Promise.all([
    desk.list(),
    command.kind === "add" ? desk.nextId() : Promise.resolve(""),
  ]);
  const plan: SchedulePlan = planScheduleCommand(command, {
    actor,
    policy: ctx.policy,
    where: { ...where, user },
    now: (ctx.now ?? Date.now)(),
    zone: ctx.sources.config().reminders.timeZone,
    records,
    newId,
  });
  switch (plan.kind) {
    case "reply":
      return plan.text;
    case "define":
      try {
        await desk.define(plan.schedule);
      } catch (error) {
        // checkSchedule's limits (the prompt's length): the message names the field and the fix.
        if (error instanceof ScheduleInputError) return `I can't schedule that: ${error.message}`;
        throw error;
      }
      return plan.reply;
    case "pause":
      await desk.pause(plan.id, plan.reason);
      return plan.reply;
    case "resume":
      await desk.resume(plan.id);
      return plan.reply;
    case "remove":
      await desk.remove(plan.id);
      return plan.reply;
  }
}

/**
 * The channel `in #name` names, by the platform's id, when the bot is in it
 * and the person may post there (the schedule speaks as them); else why not.
 * Only for someone who may schedule into a channel at all: a refusal comes
 * first, without asking the platform.
 */
async function findChannel(
  command: Extract<ScheduleCommand, { kind: "add" }>,
  directory: ConversationDirectory,
  workspace: string,
  user: string,
  actor: Actor,
  policy: CommandPolicy,
): Promise<ScheduleCommand | string> {
  if (command.target.kind !== "channel" || !mayChange(actor, "channel", policy)) return command;
  const ref = command.target.isId ? command.target.channel : `#${command.target.channel}`;
  const entry = await directory.find(workspace, ref);
  if (entry === undefined) {
    return `I am not in a channel called ${ref} here. Check the name, or invite me to the channel first.`;
  }
  const permission = await directory.mayPost(workspace, entry, user);
  if (!permission.allowed) return `I can't schedule into ${entry.name}: ${permission.reason}`;
  return { ...command, target: { kind: "channel", channel: entry.channel, isId: true } };
}
