import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RemindersConfig } from "../../core/config/reminders-section.ts";
import type { AnyTool } from "../../core/tools/tool.ts";
import type { Reminder } from "./reminder.ts";
import { cancelReminderTool, listRemindersTool, setReminderTool } from "./reminder-tools.ts";
import { type ReminderRetry, ReminderSchedule } from "./schedule.ts";

export { formatDuration, parseDuration } from "./duration.ts";
export {
  DateTimeSyntaxError,
  DurationSyntaxError,
  ReminderDataError,
  ReminderInputError,
  ReminderLimitError,
  ReminderNotFoundError,
  ReminderTimeError,
  UnknownTimeZoneError,
} from "./errors.ts";
export {
  canonicalTimeZone,
  type LocalTimeAdjustment,
  parseDateTime,
  type ResolvedDateTime,
} from "./local-time.ts";
export {
  decodeReminder,
  mentionOf,
  type Reminder,
  type ReminderOwner,
  reminderMessage,
} from "./reminder.ts";
export { ReminderIndex } from "./reminder-index.ts";
export {
  cancelReminderTool,
  listRemindersTool,
  MAX_REMINDER_TEXT,
  type ReminderToolDeps,
  setReminderTool,
} from "./reminder-tools.ts";
export { ReminderWorker, type ReminderWorkerOptions } from "./reminder-worker.ts";
export { type ResolvedWhen, resolveWhen, type TimeRules, type WhenInput } from "./resolve-time.ts";
export {
  type CancelOutcome,
  DEFAULT_RETRY,
  REMINDER_QUEUE,
  type ReminderRetry,
  ReminderSchedule,
  reminderQueue,
} from "./schedule.ts";
export { describeInstant } from "./time-text.ts";

export interface ReminderToolsOptions {
  /** From {@link reminderQueue}: the delayed jobs live there. */
  readonly queue: Queue<Reminder> | (() => Queue<Reminder>);
  /** For reminder ids and the per-person index. */
  readonly redis: Redis;
  /** The Switchyard key prefix (default "sy"); the same one the queue was made with. */
  readonly prefix?: string;
  /** The clock (default Date.now): what "now" and "in 2h" are measured from. */
  readonly now?: () => number;
  /** From the config's `reminders:` section (DEFAULT_REMINDERS when absent). */
  readonly defaults: RemindersConfig;
  /** How failing deliveries are retried (DEFAULT_RETRY). */
  readonly retry?: ReminderRetry;
}

/**
 * `set_reminder`, `list_reminders` and `cancel_reminder`. The tools only
 * schedule; a {@link ReminderWorker} (any worker process) posts them when due.
 *
 * @example
 * const queue = reminderQueue(redis, "sy");
 * for (const tool of reminderTools({ queue, redis, prefix: "sy", defaults: config.reminders }))
 *   registry.register(tool);
 */
export function reminderTools(options: ReminderToolsOptions): AnyTool[] {
  const schedule = new ReminderSchedule({
    queue: options.queue,
    redis: options.redis,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  });
  const deps = { schedule, now: options.now ?? Date.now, defaults: options.defaults };
  return [setReminderTool(deps), listRemindersTool(deps), cancelReminderTool(deps)];
}
