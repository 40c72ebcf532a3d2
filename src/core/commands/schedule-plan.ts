import { addressOnly, type ConversationAddress } from "../conversation.ts";
import {
  describeTiming,
  formatRunTime,
  MAX_SCHEDULES_PER_OWNER,
  nextRuns,
  ownedBy,
  ownedCount,
  PREVIEW_RUNS,
  parseWhen,
  type Schedule,
  ScheduleInputError,
  type ScheduleRecord,
  type ScheduleTarget,
  targetScope,
  zoneOf,
} from "../schedules/index.ts";
import { type Actor, ADMINS, type CommandPolicy, mayChange } from "./permissions.ts";
import {
  parseScheduleCommand,
  SCHEDULE_USAGE,
  type ScheduleCommand,
  ScheduleCommandError,
  type ScheduleTargetRef,
} from "./schedule-parse.ts";

/** Where `/schedule` was typed, and by whom: the inbound message is one. */
export interface ScheduleOrigin extends ConversationAddress {
  readonly user: string;
  readonly userName?: string;
  readonly thread?: string;
  /** Absent reads as a group conversation, the stricter of the two for who may schedule there. */
  readonly kind?: "dm" | "group";
}

export interface SchedulePlanContext {
  readonly actor: Actor;
  readonly policy: CommandPolicy;
  readonly where: ScheduleOrigin;
  readonly now: number;
  /** The zone a time without one is read in (the config's `reminders.time_zone`). */
  readonly zone: string;
  /** Every schedule there is: the list, the ids and the per-owner cap read it. */
  readonly records: readonly ScheduleRecord[];
  /** The id a new schedule gets. */
  readonly newId: string;
}

/** What the shell does for a `/schedule` line: answer, or make the change and then answer. */
export type SchedulePlan =
  | { readonly kind: "reply"; readonly text: string }
  | { readonly kind: "define"; readonly schedule: Schedule; readonly reply: string }
  | { readonly kind: "pause"; readonly id: string; readonly reason: string; readonly reply: string }
  | { readonly kind: "resume" | "remove"; readonly id: string; readonly reply: string };

/**
 * `/schedule` as data: the text after the command word in, what to do out.
 * Making a schedule is checked like a `/tools` change of the scope its
 * target is (a DM or thread: the conversation scope; a channel: the channel
 * scope); pausing, resuming and removing one is for its owner and whoever
 * may change that scope.
 *
 * @example
 * const plan = planScheduleText('add "every 2h" check the deploy queue', ctx);
 * if (plan.kind === "define") await desk.define(plan.schedule);
 */
export function planScheduleText(args: string, ctx: SchedulePlanContext): SchedulePlan {
  let command: ScheduleCommand;
  try {
    command = parseScheduleCommand(args);
  } catch (error) {
    if (error instanceof ScheduleCommandError) return { kind: "reply", text: error.message };
    throw error;
  }
  return planScheduleCommand(command, ctx);
}

export function planScheduleCommand(
  command: ScheduleCommand,
  ctx: SchedulePlanContext,
): SchedulePlan {
  switch (command.kind) {
    case "help":
      return { kind: "reply", text: scheduleHelp() };
    case "list":
      return planList(command.all, ctx);
    case "add":
      return planAdd(command, ctx);
    case "pause":
    case "resume":
    case "remove":
      return planChange(command, ctx);
  }
}

/** `/schedule help`. */
export function scheduleHelp(): string {
  return [
    "Schedules: I give myself a prompt on a timing and answer it as the person who made the schedule.",
    ...SCHEDULE_USAGE,
    'Times: "weekdays 09:00 Europe/Berlin", "daily 18:30", "mondays at 10am", "every 2h", "in 30m", "tomorrow 8:00", "2027-01-31T09:00Z", or a cron pattern such as "0 9 * * 1-5 UTC".',
    `A schedule in this DM or thread is yours to make; one that speaks in a channel is a channel-scope change, for ${ADMINS}. Each person may have ${MAX_SCHEDULES_PER_OWNER}.`,
  ].join("\n");
}

function planAdd(
  command: Extract<ScheduleCommand, { kind: "add" }>,
  ctx: SchedulePlanContext,
): SchedulePlan {
  const { where } = ctx;
  // Any channel named is the channel scope: refused before the name is even looked at.
  if (command.target.kind === "channel" && !mayChange(ctx.actor, "channel", ctx.policy)) {
    return { kind: "reply", text: addRefusal("channel", ctx) };
  }
  const target = targetOf(command.target, where);
  if (typeof target === "string") return { kind: "reply", text: target };
  const scope = targetScope(target);
  if (!mayChange(ctx.actor, scope, ctx.policy)) {
    return { kind: "reply", text: addRefusal(scope, ctx) };
  }
  if (ownedCount(ctx.records, where.platform, where.user) >= MAX_SCHEDULES_PER_OWNER) {
    return {
      kind: "reply",
      text: `You have ${MAX_SCHEDULES_PER_OWNER} schedules already, the most one person may have. Remove one first: /schedule list shows them, /schedule remove <id> removes one.`,
    };
  }
  let schedule: Schedule;
  try {
    schedule = {
      id: ctx.newId,
      target,
      prompt: command.prompt,
      timing: parseWhen(command.when, ctx.zone, ctx.now),
      owner: { user: where.user, ...(where.userName ? { userName: where.userName } : {}) },
      catchUp: "one",
      origin: "chat",
    };
  } catch (error) {
    if (error instanceof ScheduleInputError) {
      return {
        kind: "reply",
        text: `I can't schedule that: ${error.message} Usage: ${SCHEDULE_USAGE[0]}`,
      };
    }
    throw error;
  }
  if (nextRuns(schedule.timing, ctx.now, 1).length === 0) {
    return {
      kind: "reply",
      text: `I can't schedule that: "${command.when}" has passed. Give a time to come, e.g. "tomorrow 9:00" or "in 30m".`,
    };
  }
  const place = command.target.kind === "here" ? "here" : `in ${channelRef(target)}`;
  return {
    kind: "define",
    schedule,
    reply: [
      `Scheduled ${schedule.id} ${place}, running as you: ${schedule.prompt}`,
      ...timingLines(schedule, ctx),
      `/schedule pause ${schedule.id}, /schedule resume ${schedule.id} and /schedule remove ${schedule.id} change it.`,
    ].join("\n"),
  };
}

/** The resolved timing and the next runs, so a person can check it reads as they meant. */
export function timingLines(schedule: Schedule, ctx: { now: number; zone: string }): string[] {
  const zone = zoneOf(schedule.timing, ctx.zone);
  const runs = nextRuns(schedule.timing, ctx.now, PREVIEW_RUNS);
  return [
    `When: ${describeTiming(schedule.timing)}`,
    runs.length === 0
      ? "Next runs: none (the time has passed)."
      : `Next run${runs.length === 1 ? "" : "s"}: ${runs.map((run) => formatRunTime(run, zone)).join("; ")}`,
  ];
}

/** The target a reference names, or why it cannot be used. */
function targetOf(ref: ScheduleTargetRef, where: ScheduleOrigin): ScheduleTarget | string {
  if (ref.kind === "here") {
    return {
      ...addressOnly(where),
      ...(where.thread !== undefined ? { thread: where.thread } : {}),
      // Unknown reads as a group: the stricter scope for who may make it.
      kind: where.kind ?? "group",
    };
  }
  if (!ref.isId && !/^(?:-?\d+|[A-Z][A-Z0-9]{5,})$/.test(ref.channel)) {
    return `I can't tell which channel "#${ref.channel}" is from its name. Type # and pick the channel so it becomes a link, or give its id: ${SCHEDULE_USAGE[0]}`;
  }
  if (where.platform === "discord" && where.workspace === "dm") {
    return "From a DM I can't tell which server that channel is in. Type the command in a channel of that server, or schedule it here.";
  }
  // Where the workspace is the chat itself (Telegram), another chat is another workspace.
  const workspace = where.workspace === where.channel ? ref.channel : where.workspace;
  return {
    platform: where.platform,
    workspace,
    channel: ref.channel,
    conversation: ref.channel,
    ...(where.account !== undefined ? { account: where.account } : {}),
    kind: "group",
  };
}

function channelRef(target: ScheduleTarget): string {
  return target.platform === "slack" || target.platform === "discord"
    ? `<#${target.channel}>`
    : target.channel;
}

function addRefusal(scope: "conversation" | "channel", ctx: SchedulePlanContext): string {
  const who = `Only ${ADMINS} can change the ${scope} scope`;
  if (scope === "conversation") {
    return `${who}, and a schedule here is a change to this conversation. Ask one of them.`;
  }
  const narrower = mayChange(ctx.actor, "conversation", ctx.policy)
    ? " Ask one of them, or make the schedule in a thread or in a DM with me (the conversation scope)."
    : " Ask one of them.";
  return `${who}, and a schedule that speaks in a channel is a channel-scope change.${narrower}`;
}

function planList(all: boolean, ctx: SchedulePlanContext): SchedulePlan {
  const { where } = ctx;
  if (all && !mayChange(ctx.actor, "workspace", ctx.policy)) {
    return {
      kind: "reply",
      text: `Only ${ADMINS} can see every schedule of the workspace (the workspace scope). Ask one of them, or use /schedule list for this conversation's schedules and your own.`,
    };
  }
  const shown = ctx.records.filter((r) => {
    const t = r.schedule.target;
    if (t.platform !== where.platform) return false;
    if (all)
      return t.workspace === where.workspace || ownedBy(r.schedule, where.platform, where.user);
    return (
      ownedBy(r.schedule, where.platform, where.user) ||
      (t.workspace === where.workspace && t.conversation === where.conversation)
    );
  });
  if (shown.length === 0) {
    return {
      kind: "reply",
      text: `No schedules ${all ? "in this workspace" : "here or of yours"}. Make one: ${SCHEDULE_USAGE[0]}`,
    };
  }
  const title = all ? "Schedules in this workspace" : "Schedules here and yours";
  return {
    kind: "reply",
    text: [`${title} (${shown.length}):`, ...shown.map((r) => listLine(r, ctx))].join("\n"),
  };
}

/** One schedule in `/schedule list`: id, timing, where, next run, last run, and paused or ended. */
export function listLine(record: ScheduleRecord, ctx: { now: number; zone: string }): string {
  const { schedule } = record;
  const zone = zoneOf(schedule.timing, ctx.zone);
  const next = nextRuns(schedule.timing, ctx.now, 1)[0];
  const state = record.ended
    ? `ended (${record.ended})`
    : record.paused
      ? `paused: ${record.paused.reason}`
      : next === undefined
        ? "no run to come"
        : `next ${formatRunTime(next, zone)}`;
  const last = record.lastRun
    ? `last run ${formatRunTime(record.lastRun.tick, zone)}${record.outcome ? ` (${record.outcome.text})` : ""}`
    : "not run yet";
  const where =
    schedule.target.kind === "dm"
      ? "in a DM"
      : targetScope(schedule.target) === "channel"
        ? `in ${channelRef(schedule.target)}`
        : `in a thread of ${channelRef(schedule.target)}`;
  const owner = schedule.owner.userName ?? schedule.owner.user;
  return `• ${schedule.id} · ${describeTiming(schedule.timing)} · ${where} · ${state} · ${last} · by ${owner}${schedule.origin === "config" ? " (config)" : ""}: ${preview(schedule.prompt)}`;
}

function preview(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function planChange(
  command: Extract<ScheduleCommand, { kind: "pause" | "resume" | "remove" }>,
  ctx: SchedulePlanContext,
): SchedulePlan {
  const { where } = ctx;
  const record = ctx.records.find(
    (r) =>
      r.schedule.id === command.id &&
      r.schedule.target.platform === where.platform &&
      (r.schedule.target.workspace === where.workspace ||
        ownedBy(r.schedule, where.platform, where.user)),
  );
  if (record === undefined) {
    return {
      kind: "reply",
      text: `There is no schedule "${command.id}" here. /schedule list shows the ids of this conversation's schedules and yours (/schedule list all, the workspace's).`,
    };
  }
  const { schedule } = record;
  const scope = targetScope(schedule.target);
  if (!ownedBy(schedule, where.platform, where.user) && !mayChange(ctx.actor, scope, ctx.policy)) {
    return {
      kind: "reply",
      text: `Only the person who made ${schedule.id} (${schedule.owner.userName ?? schedule.owner.user}), or ${ADMINS} (it is a ${scope}-scope schedule), can ${command.kind} it. Ask one of them.`,
    };
  }
  if (command.kind === "remove") {
    if (schedule.origin === "config") {
      return {
        kind: "reply",
        text: `${schedule.id} is declared in the config file; remove it there (schedules:), or pause it here: /schedule pause ${schedule.id}`,
      };
    }
    return {
      kind: "remove",
      id: schedule.id,
      reply: `Removed ${schedule.id}; it will not run again.`,
    };
  }
  if (record.ended) {
    return {
      kind: "reply",
      text: `${schedule.id} has ended (${record.ended}) and takes no more runs; /schedule remove ${schedule.id} clears it from the list.`,
    };
  }
  if (command.kind === "pause") {
    if (record.paused) {
      return { kind: "reply", text: `${schedule.id} is paused already: ${record.paused.reason}` };
    }
    const by = where.userName ?? where.user;
    const reason = command.reason ?? `paused by ${by} with /schedule pause.`;
    return {
      kind: "pause",
      id: schedule.id,
      reason,
      reply: `Paused ${schedule.id}; it will not run until /schedule resume ${schedule.id}.`,
    };
  }
  if (!record.paused) {
    return { kind: "reply", text: `${schedule.id} is not paused; it runs as planned.` };
  }
  const next = nextRuns(schedule.timing, ctx.now, 1)[0];
  const zone = zoneOf(schedule.timing, ctx.zone);
  return {
    kind: "resume",
    id: schedule.id,
    reply: `Resumed ${schedule.id}${next === undefined ? "." : `; next run ${formatRunTime(next, zone)}.`} Runs missed while it was paused are not made up.`,
  };
}
