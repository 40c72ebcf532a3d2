import type { LoggerPort } from "../core/logger.ts";
import type { Schedule } from "../core/schedules/index.ts";
import type { Outbounds } from "../ports/outbound.ts";
import type { TargetGoneError } from "../ports/target-gone.ts";
import type { Schedules } from "./schedules.ts";

/** What pausing a schedule needs: the schedules, the outbounds to tell its owner through, a logger. */
export interface SchedulePauseEnvironment {
  readonly schedules: Schedules;
  readonly outbounds?: Outbounds | undefined;
  readonly logger: LoggerPort;
}

/**
 * Pauses a schedule that cannot go on by itself (its owner is no longer let
 * into its target, or its target is gone) with the reason, and tells its
 * owner once: the store says which call paused it, so two workers pausing
 * it at once tell them once. The owner hears it in a DM with the bot
 * (`Outbound.postDirect`), not in the target, which may be what is gone;
 * where the platform cannot write to them first, the notice is logged as a
 * warning instead. Returns true when this call paused it.
 *
 * @example
 * await pauseSchedule(env, schedule, "the bot can no longer post in its target (Slack: is_archived).");
 */
export async function pauseSchedule(
  env: SchedulePauseEnvironment,
  schedule: Schedule,
  reason: string,
): Promise<boolean> {
  if (!(await env.schedules.pause(schedule.id, reason))) return false;
  const fields = { schedule: schedule.id, owner: schedule.owner.user, reason };
  env.logger.warn("a schedule was paused", fields);
  const text = pausedNotice(schedule, reason);
  const outbound = env.outbounds?.[schedule.target.platform];
  if (outbound?.postDirect === undefined) {
    env.logger.warn(
      "this platform cannot write to a schedule's owner first; they were not told it paused",
      {
        ...fields,
        notice: text,
      },
    );
    return true;
  }
  const state = await env.schedules.store.get(schedule.id);
  await outbound
    .postDirect({ workspace: schedule.target.workspace, user: schedule.owner.user }, text, {
      // One notice per pause, whichever worker sends it, however often it is retried.
      idempotencyKey: `schedule-paused-${schedule.id}-${state?.paused?.at ?? 0}`,
    })
    .catch((error: unknown) =>
      env.logger.warn("could not tell a schedule's owner it was paused; the pause stands", {
        ...fields,
        notice: text,
        error: (error as Error)?.message,
      }),
    );
  return true;
}

/** Why a schedule whose target the platform says is gone is paused. */
export function goneReason(error: TargetGoneError): string {
  return `the bot can no longer post in its target (${error.platform}: ${error.reason}).`;
}

/**
 * The schedules that speak where the platform said it is gone: the ones
 * whose runs the refused answer was for, and every other one with the same
 * target channel (or thread), which would meet the same refusal at its next
 * run.
 */
export function schedulesInto(
  all: readonly Schedule[],
  gone: { readonly platform: string; readonly channel: string },
  runs: readonly string[],
): Schedule[] {
  return all.filter(
    (schedule) =>
      runs.includes(schedule.id) ||
      (schedule.target.platform === gone.platform &&
        (schedule.target.channel === gone.channel || schedule.target.thread === gone.channel)),
  );
}

/** What the owner reads when a schedule pauses itself. */
export function pausedNotice(schedule: Schedule, reason: string): string {
  return `Schedule "${schedule.id}" is paused: ${reason} It will not run again until it is resumed.`;
}
