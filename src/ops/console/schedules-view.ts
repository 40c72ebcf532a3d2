import { describeTiming, nextRuns, type Schedule } from "../../core/schedules/index.ts";
import type { ScheduleState } from "../../store/schedule-store.ts";
import { type Html, html } from "./html.ts";

/** The schedules page's path. */
export const SCHEDULES_HREF = "/console/schedules";

/** The form of a schedule's pause or resume button. */
export function scheduleActionHref(id: string, action: "pause" | "resume"): string {
  return `${SCHEDULES_HREF}/${encodeURIComponent(id)}/${action}`;
}

/** The hidden field of a schedule's pause or resume form. */
export type ActionToken = (action: "pause" | "resume", id: string) => string;

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

/**
 * When the schedule runs next: none while it is paused or over, nor after
 * its `until`. An interval's ticks fall on the grid through the latest
 * tick handled, as BullMQ's `every` scheduler places them.
 */
export function nextRunOf(state: ScheduleState, now: number): number | undefined {
  if (state.paused !== undefined || state.ended !== undefined) return undefined;
  const { timing, until } = state.schedule;
  const next =
    timing.kind === "every"
      ? state.covered +
        timing.everyMs * Math.max(1, Math.floor((now - state.covered) / timing.everyMs) + 1)
      : nextRuns(timing, now, 1)[0];
  return next !== undefined && (until === undefined || next <= until) ? next : undefined;
}

function targetText({ target }: Schedule): string {
  const where = `${target.platform} · ${target.workspace} · ${target.channel}`;
  return `${where}${target.thread ? ` · thread ${target.thread}` : ""}${target.kind === "dm" ? " (DM)" : ""}`;
}

function stateCell(state: ScheduleState): Html {
  if (state.ended !== undefined) return html`<span class="muted">ended (${state.ended})</span>`;
  if (state.paused !== undefined) {
    return html`<span class="bad">paused</span> since ${when(state.paused.at)}: <span class="reason">${state.paused.reason}</span>`;
  }
  return html`<span class="ok">running</span>`;
}

function lastRunCell(state: ScheduleState): Html | string {
  if (state.lastRun === undefined) return "-";
  const outcome = state.outcome?.text;
  return html`${when(state.lastRun.at)}<br><span class="muted">for the tick of ${when(state.lastRun.tick)} · run ${state.runs}</span>${outcome ? html`<br><span class="outcome">${outcome}</span>` : ""}`;
}

/** The pause or resume button: a POST carrying the page's token for that schedule, never a link. */
function actionCell(state: ScheduleState, token: ActionToken): Html | string {
  if (state.ended !== undefined) return "";
  const id = state.schedule.id;
  const action = state.paused === undefined ? "pause" : "resume";
  return html`<form method="post" action="${scheduleActionHref(id, action)}" class="schedule-${action}">
<input type="hidden" name="token" value="${token(action, id)}">
<button type="submit">${action === "pause" ? "Pause" : "Resume"}</button></form>`;
}

/**
 * Every schedule with its target, owner, timing, next run, last run and
 * what it came to, and whether it is paused (with why) or over; a running
 * one can be paused and a paused one resumed, as `/schedule pause|resume` does.
 * `token` makes a form's hidden field (see `actionToken`).
 */
export function schedulesView(
  states: readonly ScheduleState[],
  now: number,
  token: ActionToken,
): Html {
  if (states.length === 0) {
    return html`<p class="muted">No schedules. Declare them under <code>schedules:</code> in the config (see docs/operate/schedules.md).</p>`;
  }
  return html`<table id="schedules"><thead><tr><th>Id</th><th>Target</th><th>Owner</th><th>Timing</th>
<th>Next run</th><th>Last run</th><th>State</th><th></th></tr></thead><tbody>${states.map(
    (state) => {
      const { schedule } = state;
      const next = nextRunOf(state, now);
      return html`<tr data-schedule="${schedule.id}"><td><code>${schedule.id}</code><br><span class="muted">${schedule.origin}</span></td>
<td>${targetText(schedule)}</td><td>${schedule.owner.userName ?? schedule.owner.user}</td>
<td>${describeTiming(schedule.timing)}${schedule.maxRuns !== undefined ? html`<br><span class="muted">at most ${schedule.maxRuns} runs</span>` : ""}${schedule.until !== undefined ? html`<br><span class="muted">until ${when(schedule.until)}</span>` : ""}</td>
<td class="next-run">${next !== undefined ? when(next) : "-"}</td><td class="last-run">${lastRunCell(state)}</td>
<td class="state">${stateCell(state)}</td><td>${actionCell(state, token)}</td></tr>`;
    },
  )}</tbody></table>
<p class="muted">Times are UTC. A paused schedule takes no runs until it is resumed; the ticks it missed meanwhile are not caught up.</p>`;
}

/** What a pause or resume from the page came to, with the way back. */
export function scheduleActionView(said: string): Html {
  return html`<p id="command-reply">${said}</p><p><a href="${SCHEDULES_HREF}">Back to the schedules</a></p>`;
}
