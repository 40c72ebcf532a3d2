import type { Schedule } from "./schedule.ts";
import { ticksBetween } from "./timing.ts";

/** What a schedule's state says before a tick: how far its ticks are covered, how many runs it made. */
export interface ScheduleProgress {
  /** The latest tick that has had its run, or was skipped on purpose (ms); the creation time before any. */
  readonly covered: number;
  readonly runs: number;
}

/**
 * What to do with a tick job:
 * - `run`: enqueue one run for `tick`, standing for `missed` earlier ticks too;
 * - `skip`: nothing to run (`covered`: another job's run covered this tick
 *   already; `missed`: ticks were missed and `catch_up` is `none`), but the
 *   ticks up to `covered` count as handled;
 * - `end`: the schedule is over (`max_runs` made, past `until`).
 */
export type RunDecision =
  | {
      readonly kind: "run";
      readonly tick: number;
      readonly missed: number;
      readonly covered: number;
      readonly last: boolean;
    }
  | { readonly kind: "skip"; readonly reason: "covered" | "missed"; readonly covered: number }
  | { readonly kind: "end"; readonly reason: "max_runs" | "until" };

/** How late a single-time run may start and still count as on time under `catch_up: none`. */
export const ON_TIME_MS = 60_000;

/**
 * Decides a tick job, from the tick it was made for (`jobTick`), the time
 * now and the schedule's progress. A job runs late when every worker was
 * down: BullMQ keeps one delayed job per scheduler, so the first job after
 * the outage is the one for the first missed tick, and the ticks since it
 * (up to now) are what it stands for. A job whose tick an earlier run
 * already covered (a catch-up that raced it) is skipped.
 */
export function decideRun(
  schedule: Schedule,
  progress: ScheduleProgress,
  jobTick: number,
  now: number,
): RunDecision {
  if (schedule.maxRuns !== undefined && progress.runs >= schedule.maxRuns) {
    return { kind: "end", reason: "max_runs" };
  }
  if (schedule.until !== undefined && jobTick > schedule.until)
    return { kind: "end", reason: "until" };
  if (jobTick <= progress.covered) {
    return { kind: "skip", reason: "covered", covered: progress.covered };
  }
  // The ticks from the job's own (inclusive) to now; past `until` they do not count.
  const upTo = Math.max(jobTick, Math.min(now, schedule.until ?? now));
  const span = ticksBetween(schedule.timing, jobTick - 1, upTo, jobTick);
  const tick = span.latest ?? jobTick;
  const count = Math.max(span.count, 1);
  const late = count > 1 || (schedule.timing.kind === "at" && now - jobTick > ON_TIME_MS);
  if (late && schedule.catchUp === "none") return { kind: "skip", reason: "missed", covered: tick };
  const last = schedule.maxRuns !== undefined && progress.runs + 1 >= schedule.maxRuns;
  return {
    kind: "run",
    tick,
    missed: count - 1,
    covered: tick,
    last: last || schedule.timing.kind === "at",
  };
}
