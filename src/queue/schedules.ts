import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { checkSchedule, type Schedule, type Timing } from "../core/schedules/index.ts";
import type { ScheduleDesk } from "../ports/schedules.ts";
import { KeyScheme } from "../store/keys.ts";
import { bullmq } from "../store/redis/bullmq.ts";
import type { ScheduleState, ScheduleStore } from "../store/schedule-store.ts";

/** The BullMQ queue of schedule ticks, under a hash-tagged prefix of its own (`<prefix>:{q:schedules}`). */
export const SCHEDULE_QUEUE = "switchyard-schedules";

/** What a tick job carries: which schedule. The tick itself is in the job's id (`repeat:<id>:<ms>`) or `tick`. */
export interface TickJob {
  readonly id: string;
  /** Set on a single-time run's job, which has no scheduler to name its tick. */
  readonly tick?: number;
}

/** The tick queue on `connection`, under `prefix`'s `{q:schedules}` slot. */
export function scheduleQueue(connection: Redis, prefix = "sy"): Queue<TickJob> {
  return new (bullmq().Queue)<TickJob>(SCHEDULE_QUEUE, {
    connection,
    prefix: new KeyScheme(prefix).schedules().queuePrefix,
  });
}

/** The job id of a single-time run: one per schedule, so defining it twice queues it once. */
export function onceJobId(id: string): string {
  return `once-${id}`;
}

/**
 * Schedules as BullMQ job schedulers: a record in Redis for each one (its
 * definition and the state of its runs, {@link ScheduleStore}) and a job
 * scheduler that makes one job per tick, however many workers there are.
 * A single time is one delayed job. Defining is idempotent: defining the
 * same schedule again leaves its scheduler (and a tick job waiting on a
 * full stop) as it is; a changed timing makes it again.
 *
 * @example
 * const schedules = new Schedules(scheduleQueue(connection, "sy"), new ScheduleStore(redis, keys));
 * await schedules.define(schedule);
 * await schedules.sync(config.schedules); // the config's, at start
 */
export class Schedules implements ScheduleDesk {
  constructor(
    readonly queue: Queue<TickJob>,
    readonly store: ScheduleStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stores the schedule and makes its job scheduler when it is new or its
   * timing changed, or when the scheduler is missing (removed by hand).
   *
   * @throws ScheduleInputError when the schedule cannot be used
   */
  async define(input: Schedule): Promise<void> {
    const schedule = checkSchedule(input);
    const now = this.now();
    const changed = await this.store.put(schedule, now);
    if (changed || !(await this.#hasJob(schedule))) await this.#makeJob(schedule, now, changed);
  }

  /**
   * Makes the config's schedules so: defines each one, and removes the ones
   * the config defined before and no longer does (schedules made in chat
   * stay). Every process may run it at start; they agree.
   */
  async sync(schedules: readonly Schedule[]): Promise<void> {
    for (const schedule of schedules) await this.define({ ...schedule, origin: "config" });
    const wanted = new Set(schedules.map((s) => s.id));
    for (const state of await this.store.list()) {
      if (state.schedule.origin === "config" && !wanted.has(state.schedule.id)) {
        await this.remove(state.schedule.id);
      }
    }
  }

  /** Removes the schedule and its job scheduler; true when there was one. */
  async remove(id: string): Promise<boolean> {
    await this.#dropJob(id);
    return this.store.remove(id);
  }

  /** Pauses it (its ticks are taken and dropped); true when it was running. */
  pause(id: string, reason: string): Promise<boolean> {
    return this.store.pause(id, reason, this.now());
  }

  /** Resumes a paused schedule; the ticks while it was paused are not caught up. */
  resume(id: string): Promise<boolean> {
    return this.store.resume(id, this.now());
  }

  /** Stops it for good (its runs are made, its time is over): no more ticks, still listed. */
  async end(id: string, reason: string): Promise<void> {
    await this.store.end(id, reason);
    await this.#dropJob(id);
  }

  list(): Promise<ScheduleState[]> {
    return this.store.list();
  }

  /** A fresh id for a schedule made in chat: `s1`, `s2`, ... */
  nextId(): Promise<string> {
    return this.store.nextId();
  }

  async #hasJob(schedule: Schedule): Promise<boolean> {
    if (schedule.timing.kind !== "at") {
      return (await this.queue.getJobScheduler(schedule.id)) !== undefined;
    }
    if (schedule.timing.at <= this.now()) return true; // past: nothing more to make
    return (await this.queue.getJob(onceJobId(schedule.id))) !== undefined;
  }

  async #makeJob(schedule: Schedule, now: number, changed: boolean): Promise<void> {
    const timing: Timing = schedule.timing;
    const template = {
      name: "tick",
      data: { id: schedule.id } satisfies TickJob,
      opts: {
        attempts: 5,
        backoff: { type: "exponential", delay: 1_000 },
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
      },
    };
    if (timing.kind === "at") {
      if (changed) await this.queue.remove(onceJobId(schedule.id)).catch(() => 0);
      await this.queue.add(
        "tick",
        { id: schedule.id, tick: timing.at },
        {
          ...template.opts,
          jobId: onceJobId(schedule.id),
          delay: Math.max(0, timing.at - now),
        },
      );
      return;
    }
    const repeat =
      timing.kind === "cron"
        ? { pattern: timing.pattern, tz: timing.tz }
        : // The first tick is one interval away, not now: "every 2h" made at 10:00 first runs at 12:00.
          { every: timing.everyMs, startDate: now + timing.everyMs };
    await this.queue.upsertJobScheduler(
      schedule.id,
      { ...repeat, ...(schedule.until !== undefined ? { endDate: schedule.until } : {}) },
      template,
    );
  }

  async #dropJob(id: string): Promise<void> {
    await this.queue.removeJobScheduler(id).catch(() => false);
    await this.queue.remove(onceJobId(id)).catch(() => 0);
  }
}
