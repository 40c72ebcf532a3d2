import { z } from "zod";
import { addressOnly, type ConversationAddress, type InboundMessage } from "../conversation.ts";
import { ScheduleDataError, ScheduleInputError } from "./errors.ts";
import { MAX_COUNTED_TICKS, type Timing } from "./timing.ts";

/**
 * A message the bot gives itself on a timing: at each tick, `prompt` goes
 * into `target` as if `owner` had written it there, and the turn runs like
 * any other (the owner's access, limits, budgets and tool availability).
 *
 * @example
 * const schedule: Schedule = {
 *   id: "standup",
 *   target: { platform: "slack", workspace: "T1", channel: "C1", conversation: "C1", kind: "group" },
 *   prompt: "Summarise yesterday in #incidents.",
 *   timing: cronTiming("0 9 * * 1-5", "Europe/Berlin"),
 *   owner: { user: "U1" },
 *   catchUp: "one",
 *   origin: "config",
 * };
 */
export interface Schedule {
  /** Lower-case letters, digits, `-` and `_`: BullMQ's job scheduler id and the event ids derive from it. */
  readonly id: string;
  readonly target: ScheduleTarget;
  readonly prompt: string;
  readonly timing: Timing;
  /** The person it runs as. */
  readonly owner: ScheduleOwner;
  /** Stop after this many runs. */
  readonly maxRuns?: number;
  /** No run after this time (ms since the epoch). */
  readonly until?: number;
  /** What ticks missed while every worker was down come to: one run for them all (default), or none. */
  readonly catchUp: CatchUp;
  /** Where it was defined: the config file (synced at start), or chat and the tool (kept in Redis). */
  readonly origin: "config" | "chat";
}

export type CatchUp = "one" | "none";

/** The conversation a schedule speaks into: a channel, a thread of it, or a DM with its owner. */
export interface ScheduleTarget extends ConversationAddress {
  /** The thread to answer in, when the platform has threads. */
  readonly thread?: string;
  /** A direct message with the owner, or a group conversation: the access policy reads it. */
  readonly kind: "dm" | "group";
}

export interface ScheduleOwner {
  /** The platform's user id (on the target's platform). */
  readonly user: string;
  readonly userName?: string;
}

/**
 * A message the bot gives itself (a schedule's run, a hook's call): `text`
 * in the target, as if its owner had written it there, with no attachments.
 */
export function ownersMessage(
  { target, owner }: { readonly target: ScheduleTarget; readonly owner: ScheduleOwner },
  text: string,
  eventId: string,
  time: number,
): InboundMessage {
  return {
    ...addressOnly(target),
    ...(target.thread ? { thread: target.thread } : {}),
    kind: target.kind,
    user: owner.user,
    ...(owner.userName ? { userName: owner.userName } : {}),
    text,
    attachments: [],
    eventId,
    time,
  };
}

/** An id for a scheduler and an event id: short, no `:` (BullMQ's job ids are split on it). */
export const SCHEDULE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The longest prompt a schedule takes; the inbound limit is far above it, the point is a readable list. */
export const MAX_PROMPT = 4_000;

/**
 * A schedule checked for use.
 *
 * @throws ScheduleInputError naming the field and the fix
 */
export function checkSchedule(schedule: Schedule): Schedule {
  if (!SCHEDULE_ID.test(schedule.id)) {
    throw new ScheduleInputError(
      "id",
      schedule.id,
      "use up to 64 lower-case letters, digits, - and _, starting with a letter or digit (e.g. daily-standup)",
    );
  }
  const prompt = schedule.prompt.trim();
  if (prompt === "" || prompt.length > MAX_PROMPT) {
    throw new ScheduleInputError(
      "prompt",
      schedule.prompt.slice(0, 40),
      `write what the bot should do at each run, in 1 to ${MAX_PROMPT} characters`,
    );
  }
  if (
    schedule.maxRuns !== undefined &&
    (!Number.isInteger(schedule.maxRuns) || schedule.maxRuns < 1)
  ) {
    throw new ScheduleInputError(
      "max_runs",
      String(schedule.maxRuns),
      "use a whole number of 1 or more",
    );
  }
  if (schedule.until !== undefined && !Number.isFinite(schedule.until)) {
    throw new ScheduleInputError(
      "until",
      String(schedule.until),
      "give a date and time such as 2027-01-31T18:00Z",
    );
  }
  if (schedule.target.kind === "dm" && schedule.target.channel === "") {
    throw new ScheduleInputError("target", "", "name the DM channel the owner has with the bot");
  }
  return { ...schedule, prompt };
}

/** Why a run happens now: the tick it was made for, and how many ticks before it were missed. */
export interface ScheduledRun {
  readonly id: string;
  /** The tick this run stands for (ms): the latest of the ticks it covers. */
  readonly tick: number;
  /** Ticks before it that had no run of their own (every worker was down). */
  readonly missed: number;
}

/** The event id of a run: the same tick enqueued twice is one message. */
export function scheduledEventId(run: Pick<ScheduledRun, "id" | "tick">): string {
  return `schedule:${run.id}:${run.tick}`;
}

/**
 * What the model reads for a run: the prompt, and a line saying it is a
 * scheduled run and, when ticks were missed, how many this one stands for.
 */
export function scheduledText(prompt: string, run: ScheduledRun): string {
  const when = new Date(run.tick).toISOString();
  const missed =
    run.missed === 0
      ? ""
      : ` ${run.missed > MAX_COUNTED_TICKS ? `More than ${MAX_COUNTED_TICKS}` : run.missed} earlier run${run.missed === 1 ? " was" : "s were"} missed while the bot was down; this one run stands for them all.`;
  return `[Scheduled run of "${run.id}" for ${when}.${missed}]\n${prompt}`;
}

const timingJson = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("cron"), pattern: z.string(), tz: z.string() }),
  z.object({ kind: z.literal("every"), everyMs: z.number().int().positive() }),
  z.object({ kind: z.literal("at"), at: z.number() }),
]);

const scheduleJson = z.object({
  id: z.string().regex(SCHEDULE_ID),
  target: z.object({
    platform: z.string(),
    workspace: z.string(),
    channel: z.string(),
    conversation: z.string(),
    // The bot account that received the command: the runs answer through the same one.
    account: z.string().optional(),
    thread: z.string().optional(),
    kind: z.enum(["dm", "group"]),
  }),
  prompt: z.string(),
  timing: timingJson,
  owner: z.object({ user: z.string(), userName: z.string().optional() }),
  maxRuns: z.number().int().positive().optional(),
  until: z.number().optional(),
  catchUp: z.enum(["one", "none"]),
  origin: z.enum(["config", "chat"]),
});

/** The schedule as stored: plain JSON. */
export function encodeSchedule(schedule: Schedule): string {
  return JSON.stringify(schedule);
}

/** @throws ScheduleDataError when the stored JSON is not a schedule */
export function decodeSchedule(raw: string): Schedule {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ScheduleDataError("A stored schedule is not JSON; remove it with /schedule remove.");
  }
  const parsed = scheduleJson.safeParse(value);
  if (!parsed.success) {
    throw new ScheduleDataError(
      `A stored schedule does not decode (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}).`,
    );
  }
  return parsed.data as Schedule;
}
