export { ScheduleDataError, ScheduleInputError } from "./errors.ts";
export {
  formatRunTime,
  MAX_SCHEDULES_PER_OWNER,
  ownedBy,
  ownedCount,
  PREVIEW_RUNS,
  type ScheduleRecord,
  targetScope,
  zoneOf,
} from "./record.ts";
export { decideRun, type RunDecision } from "./run-decision.ts";
export {
  type CatchUp,
  checkSchedule,
  decodeSchedule,
  encodeSchedule,
  MAX_PROMPT,
  ownersMessage,
  SCHEDULE_ID,
  type Schedule,
  type ScheduledRun,
  type ScheduleOwner,
  type ScheduleTarget,
  scheduledEventId,
  scheduledText,
} from "./schedule.ts";
export {
  canonicalZone,
  cronTiming,
  describeTiming,
  MAX_COUNTED_TICKS,
  MIN_EVERY_MS,
  nextRuns,
  parseEvery,
  type TickSpan,
  type Timing,
  ticksBetween,
} from "./timing.ts";
export { parseWhen } from "./when.ts";
