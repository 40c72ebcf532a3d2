import { createHash } from "node:crypto";
import { z } from "zod";
import type { Actor, CommandPolicy } from "../core/commands/index.ts";
import { mayChange } from "../core/commands/permissions.ts";
import { timingLines } from "../core/commands/schedule-plan.ts";
import {
  MAX_PROMPT,
  MAX_SCHEDULES_PER_OWNER,
  nextRuns,
  ownedCount,
  parseWhen,
  type Schedule,
  ScheduleInputError,
  type ScheduleTarget,
  targetScope,
} from "../core/schedules/index.ts";
import { type AnyTool, defineTool, type ToolContext } from "../core/tools/tool.ts";
import type { ScheduleDesk } from "../ports/schedules.ts";
import { answering } from "./refusals.ts";

export interface ScheduleTaskDeps {
  /** Where schedules are made; looked up at the first call, so listing tools needs no Redis. */
  readonly desk: () => ScheduleDesk;
  /** The zone a time without one is read in (the config's `reminders.time_zone`). */
  readonly zone: string;
  /** Who may change which scope (the config's `permissions:`). */
  readonly policy: () => CommandPolicy;
  readonly now?: () => number;
}

/**
 * `schedule_task`: the model makes a schedule in this conversation, running
 * as the person it is talking to, from a plain-language time ("weekdays
 * 09:00 Europe/Berlin", "every 2h"), and gets the resolved timing and the
 * next three runs to tell them. Deferred, and it asks first by default
 * (`approval: "ask"`): a schedule makes the bot speak again and again, so a
 * person sees it before it exists. It keeps the `/schedule` limits: the
 * per-owner cap, and a schedule at a channel's top level is a channel-scope
 * change, which the tool makes only for the config's owners and admins
 * (platform admins use `/schedule add`).
 */
export function scheduleTaskTool(deps: ScheduleTaskDeps): AnyTool {
  const now = deps.now ?? Date.now;
  return defineTool({
    id: "schedule_task",
    description:
      'Schedules a prompt that you will be given in this conversation on a timing, running as the person you are talking to, and answer then as usual: recurring work ("every weekday at 9, summarise yesterday\'s incidents") or one later task. Use it only when the person asks for that. Tell them the timing and the next runs it returns; they change it with /schedule.',
    parameters: z.object({
      when: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .describe(
          'When it runs, as a person says it: "weekdays 09:00 Europe/Berlin", "daily 18:30", "mondays at 10am", "every 2h", "in 30m", "tomorrow 8:00", an ISO time "2027-01-31T09:00Z", or a cron pattern "0 9 * * 1-5 UTC". Add the person\'s IANA zone when you know it.',
        ),
      prompt: z
        .string()
        .trim()
        .min(1)
        .max(MAX_PROMPT)
        .describe(
          "What you will be asked at each run, written as the person's request, complete on its own.",
        ),
    }),
    defer: true,
    effects: true,
    approval: "ask",
    execute: ({ when, prompt }, ctx) =>
      answering(
        () => schedule(deps.desk(), { when, prompt }, ctx, deps, now()),
        [ScheduleInputError],
      ),
  });
}

async function schedule(
  desk: ScheduleDesk,
  args: { when: string; prompt: string },
  ctx: ToolContext,
  deps: ScheduleTaskDeps,
  now: number,
): Promise<string> {
  const target: ScheduleTarget = {
    platform: ctx.platform,
    workspace: ctx.workspace,
    channel: ctx.channel,
    conversation: ctx.conversation,
    ...(ctx.thread !== undefined ? { thread: ctx.thread } : {}),
    kind: ctx.kind ?? "group",
  };
  const scope = targetScope(target);
  const actor: Actor = { id: `${ctx.platform}:${ctx.user}`, isPlatformAdmin: false };
  if (!mayChange(actor, scope, deps.policy())) {
    return `Not scheduled: a schedule that speaks at this ${scope}'s top level is a ${scope}-scope change, which only workspace admins or the bot's configured admins make. Tell the person to ask one of them to use /schedule add, or to ask again in a thread or a DM with you.`;
  }
  const id = idFor(ctx) ?? (await desk.nextId());
  const records = await desk.list();
  const again = records.some((r) => r.schedule.id === id);
  if (!again && ownedCount(records, ctx.platform, ctx.user) >= MAX_SCHEDULES_PER_OWNER) {
    return `Not scheduled: the person has ${MAX_SCHEDULES_PER_OWNER} schedules already, the most one person may have. They can remove one with /schedule remove <id> (/schedule list shows them).`;
  }
  const made: Schedule = {
    id,
    target,
    prompt: args.prompt,
    timing: parseWhen(args.when, deps.zone, now),
    owner: { user: ctx.user, ...(ctx.userName ? { userName: ctx.userName } : {}) },
    catchUp: "one",
    origin: "chat",
  };
  if (nextRuns(made.timing, now, 1).length === 0) {
    return `Not scheduled: "${args.when}" has passed. Ask the person for a time to come.`;
  }
  await desk.define(made);
  return [
    `Scheduled ${id} in this conversation, running as the person you are talking to.`,
    ...timingLines(made, { now, zone: deps.zone }),
    `They can change it with /schedule pause ${id}, /schedule resume ${id} or /schedule remove ${id}.`,
  ].join("\n");
}

/** The same id for a call a resumed turn repeats (same `callKey`): the schedule is made once. */
function idFor(ctx: ToolContext): string | undefined {
  if (!ctx.callKey) return undefined;
  const digest = createHash("sha1")
    .update(`${ctx.platform}|${ctx.workspace}|${ctx.conversation}|${ctx.callKey}`)
    .digest("hex");
  return `t${digest.slice(0, 8)}`;
}
