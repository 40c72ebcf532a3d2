import { DateTime } from "luxon";
import type { Schedule, ScheduleTarget } from "./schedule.ts";
import type { Timing } from "./timing.ts";

/**
 * A schedule with what is known of its runs, as `/schedule list` and the
 * `schedule_task` tool read it (the store's `ScheduleState` is one).
 */
export interface ScheduleRecord {
  readonly schedule: Schedule;
  readonly runs: number;
  /** When the last run was claimed (ms), and for which tick. */
  readonly lastRun?: { readonly at: number; readonly tick: number };
  /** What the latest run came to (`queued`, `skipped: <why>`, `paused`), and when (ms). */
  readonly outcome?: { readonly text: string; readonly at: number };
  readonly paused?: { readonly reason: string; readonly at: number };
  /** Why it takes no more runs (`max_runs`, `until`, `once`). */
  readonly ended?: string;
}

/**
 * How many schedules one person may have made in chat and through
 * `schedule_task` (per platform, ended ones not counted): enough for a
 * person's recurring chores, few enough that a looping model cannot fill
 * the queue with them.
 */
export const MAX_SCHEDULES_PER_OWNER = 20;

/** How many run times a reply shows, so the person can check the timing reads as they meant. */
export const PREVIEW_RUNS = 3;

/**
 * The scope a schedule's target is, for who may make and change it (the
 * `/tools` model): a DM or a thread is the conversation scope; a channel's
 * top level, which every member of the channel reads, is the channel scope.
 */
export function targetScope(target: ScheduleTarget): "conversation" | "channel" {
  if (target.kind === "dm") return "conversation";
  if (target.thread !== undefined || target.conversation !== target.channel) return "conversation";
  return "channel";
}

/** The zone a schedule's times read best in: a cron pattern's own, else `zone`. */
export function zoneOf(timing: Timing, zone: string): string {
  return timing.kind === "cron" ? timing.tz : zone;
}

/**
 * A time as a reply shows it, on the wall clock of `zone`, with the zone
 * named: `Mon 2026-12-07 09:00 Europe/Berlin`. No locale: the same bytes on
 * every machine.
 */
export function formatRunTime(ms: number, zone: string): string {
  const local = DateTime.fromMillis(ms, { zone });
  const seconds = local.second === 0 ? "" : `:${String(local.second).padStart(2, "0")}`;
  return `${local.toFormat("ccc yyyy-LL-dd HH:mm", { locale: "en" })}${seconds} ${zone}`;
}

/** Whether `user` on `platform` made the schedule (it runs as them). */
export function ownedBy(schedule: Schedule, platform: string, user: string | undefined): boolean {
  return (
    user !== undefined && schedule.target.platform === platform && schedule.owner.user === user
  );
}

/** The live schedules a person made in chat or through the tool, for {@link MAX_SCHEDULES_PER_OWNER}. */
export function ownedCount(
  records: readonly ScheduleRecord[],
  platform: string,
  user: string,
): number {
  return records.filter(
    (r) =>
      r.schedule.origin === "chat" && r.ended === undefined && ownedBy(r.schedule, platform, user),
  ).length;
}
