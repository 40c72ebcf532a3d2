import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { LoggerPort } from "../../core/logger.ts";
import { KeyScheme } from "../../store/keys.ts";
import { bullmq } from "../../store/redis/bullmq.ts";
import { decodeReminder, type Reminder } from "./reminder.ts";
import { REMINDER_QUEUE, reminderQueue } from "./schedule.ts";

/** The states of a job that has not fired yet and that no worker holds. */
const WAITING = ["delayed", "wait", "prioritized", "paused"] as const;
const BATCH = 100;

/**
 * Moves the reminders a version before hash-tagged queues left under
 * `<prefix>:bull` into today's reminder queue, keeping each one's id and due
 * time, so an upgrade drops none. A reminder can be due months ahead, so
 * draining the old queue would keep a worker on it for months; moving is
 * done once, at start. On a cluster the old queue cannot exist (its keys
 * span slots): nothing to do.
 *
 * A job is added to the new queue before it leaves the old one: a crash in
 * between leaves two copies with one id, and delivery is idempotent by that
 * id. If the old one cannot be removed (an old worker took it just now), the
 * new copy is taken back. Returns how many moved.
 */
export async function moveLegacyReminders(
  connection: Redis,
  prefix: string,
  logger: LoggerPort,
  now: () => number = Date.now,
): Promise<number> {
  if (connection.isCluster) return 0;
  const legacy = new (bullmq().Queue)<Reminder>(REMINDER_QUEUE, {
    connection,
    prefix: new KeyScheme(prefix).legacyQueuePrefix(),
  });
  const target = reminderQueue(connection, prefix);
  let moved = 0;
  try {
    for (;;) {
      const jobs = (await legacy.getJobs([...WAITING], 0, BATCH - 1)).filter(
        (job): job is Job<Reminder> => job !== undefined && job.id !== undefined,
      );
      if (jobs.length === 0) break;
      let progressed = false;
      for (const job of jobs) {
        if (await moveOne(job, target, now())) {
          moved++;
          progressed = true;
        }
      }
      // Every job of the batch was held by an old worker: they leave on their own.
      if (!progressed) break;
    }
    if (moved > 0) {
      logger.warn(`moved ${moved} pending reminders from the queue of an earlier version`, {
        prefix,
      });
    }
  } catch (error) {
    logger.warn("could not move the reminders of an earlier version; they stay where they are", {
      error: (error as Error).message,
    });
  } finally {
    await Promise.all([legacy.close(), target.close()]);
  }
  return moved;
}

async function moveOne(job: Job<Reminder>, target: Queue<Reminder>, now: number): Promise<boolean> {
  const id = job.id as string;
  let dueAt: number;
  try {
    dueAt = decodeReminder(job.data).dueAt;
  } catch {
    // Unreadable data still moves: the worker turns it into a clear failure, not a silent loss.
    dueAt = job.timestamp + job.delay;
  }
  const { attempts, backoff, removeOnComplete, removeOnFail } = job.opts;
  await target.add(job.name, job.data, {
    jobId: id,
    timestamp: job.timestamp,
    delay: Math.max(0, dueAt - now),
    ...(attempts !== undefined ? { attempts } : {}),
    ...(backoff !== undefined ? { backoff } : {}),
    ...(removeOnComplete !== undefined ? { removeOnComplete } : {}),
    ...(removeOnFail !== undefined ? { removeOnFail } : {}),
  });
  try {
    await job.remove();
    return true;
  } catch {
    await target.remove(id).catch(() => {});
    return false;
  }
}
