import type { Schedule, ScheduleRecord } from "../core/schedules/index.ts";

/**
 * Making and changing schedules from chat (`/schedule`) and from the model
 * (`schedule_task`), in any process: the queue's `Schedules` is one. A
 * change here is what every worker's ticks follow from the next tick.
 */
export interface ScheduleDesk {
  /** A fresh id for a schedule made in chat: `s1`, `s2`, ... */
  nextId(): Promise<string>;
  /**
   * Stores the schedule and makes its job scheduler; the same schedule
   * defined again changes nothing.
   *
   * @throws ScheduleInputError when the schedule cannot be used
   */
  define(schedule: Schedule): Promise<void>;
  /** Every schedule, by id. */
  list(): Promise<readonly ScheduleRecord[]>;
  /** True when this call paused it. */
  pause(id: string, reason: string): Promise<boolean>;
  /** True when it was paused. */
  resume(id: string): Promise<boolean>;
  /** True when there was one. */
  remove(id: string): Promise<boolean>;
}

/**
 * What a turn asks of the schedules (the queue's `Schedules` answers): a
 * scheduled run is queued by its tick, and its turn may begin much later
 * (behind a long turn, on a loaded machine), after a person or the worker
 * paused or removed the schedule. Such a run no longer runs.
 */
export interface ScheduledRuns {
  /** Whether the schedule takes no runs now: paused, or removed. */
  stopped(id: string): Promise<boolean>;
  /** Takes back a run its tick counted and that never ran, so `runs` (and `max_runs`) count runs made. */
  withdraw(id: string): Promise<void>;
}
