import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { KeyScheme, type ReminderKeys } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";
import { bullmq } from "../../store/redis/bullmq.ts";
import { ReminderLimitError, ReminderNotFoundError } from "./errors.ts";
import type { Reminder, ReminderOwner } from "./reminder.ts";
import { ReminderIndex } from "./reminder-index.ts";

/**
 * The id a tool call gets: the one it got before when the call is a resumed
 * turn's repeat (same call key), else the next number.
 */
const ID_FOR_CALL = LuaScript.file("reminder-id-for-call-2");

/** A resumed turn repeats its calls within minutes; a week is far beyond that. */
const CALL_MEMORY_MS = 7 * 24 * 60 * 60 * 1000;

/** The BullMQ queue of reminders, under a hash-tagged prefix of its own (`<prefix>:{q:reminders}`). */
export const REMINDER_QUEUE = "switchyard-reminders";

/** How often a failing delivery is tried again, and the first wait (it doubles each time). */
export interface ReminderRetry {
  readonly attempts: number;
  readonly backoffMs: number;
}

/** Eight tries over about eight minutes: a platform outage of a few minutes delays a reminder, never drops it. */
export const DEFAULT_RETRY: ReminderRetry = Object.freeze({ attempts: 8, backoffMs: 2_000 });

/**
 * The producer side's queue. Jobs are added on the connection given; a
 * worker needs a connection of its own (see ReminderWorker).
 */
export function reminderQueue(connection: Redis, prefix = "sy"): Queue<Reminder> {
  return new (bullmq().Queue)<Reminder>(REMINDER_QUEUE, {
    connection,
    prefix: new KeyScheme(prefix).reminderQueuePrefix(),
  });
}

export interface ReminderScheduleOptions {
  /** The queue, or how to make it when a reminder is first set (a process that only lists tools never connects). */
  readonly queue: Queue<Reminder> | (() => Queue<Reminder>);
  /** For the ids and the per-person index. */
  readonly redis: Redis;
  readonly prefix?: string;
  readonly retry?: ReminderRetry;
}

/** What `cancel` found: cancelled, or already being delivered (too late to stop). */
export type CancelOutcome = { readonly kind: "cancelled" | "firing"; readonly reminder: Reminder };

/**
 * Reminders as delayed BullMQ jobs plus a per-person index. The job is what
 * fires: it lives in Redis, so it survives restarts and fires on whichever
 * worker is running when it is due. Its id is the reminder's id, so a
 * reminder can be found and cancelled without a scan.
 */
export class ReminderSchedule {
  #queue: Queue<Reminder> | (() => Queue<Reminder>);
  readonly index: ReminderIndex;
  readonly #redis: Redis;
  readonly #keys: ReminderKeys;
  readonly #retry: ReminderRetry;

  constructor(options: ReminderScheduleOptions) {
    const keys = new KeyScheme(options.prefix ?? "sy");
    this.#queue = options.queue;
    this.#redis = options.redis;
    this.index = new ReminderIndex(options.redis, keys.prefix);
    this.#keys = keys.reminders();
    this.#retry = options.retry ?? DEFAULT_RETRY;
  }

  get queue(): Queue<Reminder> {
    if (typeof this.#queue === "function") this.#queue = this.#queue();
    return this.#queue;
  }

  /**
   * A fresh id: `r` and a number from one counter, so ids are short and never
   * reused. With the tool call's key, a resumed turn that repeats the call
   * gets the id its first run got, and adding it again changes nothing: the
   * reminder is set once (rule 9).
   */
  async nextId(callKey?: string): Promise<string> {
    const { seq } = this.#keys;
    if (callKey === undefined) return `r${await this.#redis.incr(seq)}`;
    return String(
      await ID_FOR_CALL.run(this.#redis, [this.#keys.call(callKey), seq], [CALL_MEMORY_MS]),
    );
  }

  /**
   * Indexes the reminder (refusing past `maxPending`), then adds its delayed
   * job. The job's clock is the caller's `now`: it fires `dueAt - now` after
   * that moment. If the job cannot be added, the index entry is taken back.
   * A reminder whose id is already set (a resumed turn repeating its call)
   * is left as it was, and returned as it was set.
   */
  async add(reminder: Reminder, now: number, maxPending: number): Promise<Reminder> {
    const existing = await this.queue.getJob(reminder.id);
    if (existing) return existing.data;
    if (!(await this.index.add(reminder, maxPending))) {
      throw new ReminderLimitError(
        "pending",
        maxPending,
        `You have ${maxPending} pending reminders in this workspace, the most allowed. Nothing was set. Cancel one you no longer need (list_reminders shows them), then set this one again.`,
      );
    }
    try {
      await this.queue.add("reminder", reminder, {
        jobId: reminder.id,
        timestamp: now,
        delay: Math.max(0, reminder.dueAt - now),
        attempts: this.#retry.attempts,
        backoff: { type: "exponential", delay: this.#retry.backoffMs },
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
      });
    } catch (error) {
      await this.index.remove(reminder, reminder.id).catch(() => {});
      throw error;
    }
    return reminder;
  }

  /** The person's pending reminders in this workspace, soonest first. */
  list(owner: ReminderOwner): Promise<Reminder[]> {
    return this.index.list(owner);
  }

  /**
   * Cancels one of the person's own reminders. Another person's id is "not
   * found", never "not yours": ids are sequential and would tell who has
   * reminders.
   *
   * @throws ReminderNotFoundError
   */
  async cancel(owner: ReminderOwner, id: string): Promise<CancelOutcome> {
    const wanted = id.trim().toLowerCase();
    const reminder = /^r[0-9]+$/.test(wanted) ? await this.index.get(owner, wanted) : undefined;
    if (reminder === undefined) throw new ReminderNotFoundError(id);
    // remove() refuses (0) only for a job a worker holds the lock of: it is being posted right now.
    const removed = await this.queue.remove(wanted);
    if (removed === 0 && (await this.queue.getJobState(wanted)) === "active") {
      return { kind: "firing", reminder };
    }
    await this.index.remove(owner, wanted);
    return { kind: "cancelled", reminder };
  }
}
