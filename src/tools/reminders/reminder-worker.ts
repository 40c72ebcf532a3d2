import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { type LoggerPort, silentLogger } from "../../core/logger.ts";
import type { Outbounds } from "../../ports/outbound.ts";
import { KeyScheme } from "../../store/keys.ts";
import { bullmq, jobWorker } from "../../store/redis/bullmq.ts";
import { ReminderDataError } from "./errors.ts";
import { moveLegacyReminders } from "./legacy-queue.ts";
import { decodeReminder, type Reminder, reminderMessage, targetOf } from "./reminder.ts";
import { ReminderIndex } from "./reminder-index.ts";
import { REMINDER_QUEUE } from "./schedule.ts";

export interface ReminderWorkerOptions {
  /** BullMQ's connection; give it one of its own, with `maxRetriesPerRequest: null`. */
  readonly connection: Redis;
  /** For the per-person index (a fired reminder leaves it). The state connection will do. */
  readonly redis: Redis;
  readonly prefix?: string;
  /** Outbound ports by platform: the reminder posts through its own platform's. */
  readonly outbounds: Outbounds;
  readonly concurrency?: number;
  readonly logger?: LoggerPort;
}

/**
 * Fires reminders when their delayed jobs come due: posts "⏰ Reminder for
 * <user>: <text>" into the conversation (and thread) it was set in.
 *
 * Delivery is exactly once: the post's idempotency key is the reminder's id,
 * so a job retried after the post went out (a lost acknowledgement, a
 * crashed worker) does not post twice. Because the jobs live in Redis, a
 * worker started after a restart fires everything that came due meanwhile.
 *
 * @example
 * const worker = new ReminderWorker({ connection, redis, prefix: "sy", outbounds });
 * worker.start();
 * // on SIGTERM
 * await worker.close();
 */
export class ReminderWorker {
  readonly worker: Worker<Reminder>;
  readonly #index: ReminderIndex;
  readonly #outbounds: Outbounds;
  readonly #logger: LoggerPort;
  readonly #connection: Redis;
  readonly #prefix: string;
  /** Resolves once reminders queued by a version before hash-tagged queues are in the new queue. */
  moved: Promise<number> = Promise.resolve(0);

  constructor(options: ReminderWorkerOptions) {
    const prefix = new KeyScheme(options.prefix ?? "sy").prefix;
    this.#connection = options.connection;
    this.#prefix = prefix;
    this.#index = new ReminderIndex(options.redis, prefix);
    this.#outbounds = options.outbounds;
    this.#logger = options.logger ?? silentLogger;
    // A worker that died mid-post leaves the job stalled: jobWorker takes it over rather than drop it.
    this.worker = jobWorker<Reminder>(REMINDER_QUEUE, (job) => this.#fire(job), {
      connection: options.connection,
      prefix: new KeyScheme(prefix).reminderQueuePrefix(),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      logger: this.#logger,
      name: "reminder worker",
    });
    this.worker.on("failed", (job, error) => void this.#gaveUp(job, error));
  }

  start(): void {
    void this.worker.run();
    this.moved = moveLegacyReminders(this.#connection, this.#prefix, this.#logger);
  }

  /** Stops taking reminders and waits for the posts in progress. Pending ones stay in Redis. */
  async close(): Promise<void> {
    await Promise.all([this.worker.close(), this.moved]);
  }

  async #fire(job: Job<Reminder>): Promise<string> {
    let reminder: Reminder;
    try {
      reminder = decodeReminder(job.data);
    } catch (error) {
      if (error instanceof ReminderDataError)
        throw new (bullmq().UnrecoverableError)(error.message);
      throw error;
    }
    const outbound = this.#outbounds[reminder.platform];
    if (outbound === undefined) {
      // Retried: another worker process, or this one after a config fix, may have the platform.
      throw new Error(
        `No outbound for platform "${reminder.platform}" in this worker, so reminder ${reminder.id} cannot be posted. Configure that channel on the workers (available: ${Object.keys(this.#outbounds).join(", ") || "none"}).`,
      );
    }
    const ref = await outbound.post(targetOf(reminder), reminderMessage(reminder), {
      idempotencyKey: reminder.id,
      // An earlier attempt may have posted before it died: channels that can look posts up do.
      mayExist: job.attemptsStarted > 1 || job.attemptsMade > 0,
    });
    await this.#index.remove(reminder, reminder.id);
    return ref;
  }

  /** After the last attempt the reminder is gone for good: take it off the person's list too. */
  async #gaveUp(job: Job<Reminder> | undefined, error: Error): Promise<void> {
    if (job === undefined) return;
    const final =
      error instanceof bullmq().UnrecoverableError ||
      error.name === "UnrecoverableError" ||
      job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    this.#logger.warn("a reminder could not be delivered and was dropped", {
      reminder: job.id,
      error: error.message,
    });
    try {
      await this.#index.remove(decodeReminder(job.data), String(job.id));
    } catch {
      // Unreadable data has no owner to find the index entry by; nothing more to do.
    }
  }
}
