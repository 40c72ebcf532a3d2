import { planScheduleText, type SchedulePlan } from "../../core/commands/index.ts";
import { ScheduleInputError } from "../../core/schedules/index.ts";
import type { ChatCommand, CommandCall } from "./registry.ts";

/**
 * `/schedule`: recurring and one-time prompts the bot gives itself in a
 * conversation, as the person who made them. The grammar and the
 * permissions are `planScheduleText`'s; this reads the schedules, applies
 * the plan to the schedule desk and answers.
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
  if (where.user === undefined) return "I can't tell who is asking, so I can't schedule anything.";
  const adding = /^(add|new)\b/i.test(args);
  const [records, newId] = await Promise.all([
    desk.list(),
    adding ? desk.nextId() : Promise.resolve(""),
  ]);
  const plan: SchedulePlan = planScheduleText(args, {
    actor,
    policy: ctx.policy,
    where: { ...where, user: where.user },
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
