import type { ApprovalDecision, ApprovalWait } from "./approval.ts";
import { listOf, nameOf } from "./request.ts";

/** The result an approved call gets when a crashed run of the turn claimed it and died before its result was stored. */
export const STOPPED_WHILE_RUNNING =
  "The worker stopped while it ran; it may have taken effect; not run again. Check before trying it again.";

/** Whether a verdict lets the calls run. */
export function approves(decision: ApprovalDecision): boolean {
  return decision.verdict === "approved" || decision.verdict === "approved_conversation";
}

/**
 * The result text a call that did not run gets, so the model can explain or
 * try another way: what happened and who decided (rule 6: every call keeps
 * a result).
 *
 * @example
 * notRunResult(wait, { verdict: "denied", by: { user: "U1", name: "Alice" }, at })
 * // "not run: Alice denied it"
 */
export function notRunResult(wait: ApprovalWait, decision: ApprovalDecision): string {
  const by = decision.by ? nameOf(decision.by) : undefined;
  switch (decision.verdict) {
    case "approved":
    case "approved_conversation":
      return "";
    case "denied":
      return `not run: ${by ?? "someone"} denied it. Do not call it again for this; explain, or do it another way.`;
    case "expired":
      return `not run: nobody approved it within ${durationOf(wait)}.`;
    case "cancelled":
      return `not run: ${by ? `${by} stopped` : "the turn was stopped"} before anyone approved it.`;
    case "superseded":
      return `not run: ${by ?? "the person"} wrote a new message instead of deciding; read it first.`;
  }
}

/**
 * What the request message is edited to once its calls are decided (its
 * buttons go with the edit): the tools it asked for and what became of them.
 */
export function outcomeText(wait: ApprovalWait, decision: ApprovalDecision): string {
  const tools = listOf([...new Set(wait.calls.map((c) => c.tool))]);
  const by = decision.by ? nameOf(decision.by) : "someone";
  switch (decision.verdict) {
    case "approved":
      return `Approved by ${by}: ${tools}.`;
    case "approved_conversation":
      return `Approved by ${by} for this conversation: ${tools} (now on here; /tools shows it).`;
    case "denied":
      return `Denied by ${by}: ${tools} did not run.`;
    case "expired":
      return `Expired: nobody decided within ${durationOf(wait)}, so ${tools} did not run.`;
    case "cancelled":
      return `Cancelled: the turn was stopped, so ${tools} did not run.`;
    case "superseded":
      return `Not decided: ${by} wrote instead, so ${tools} did not run.`;
  }
}

/** What the clicker is told when their decision was recorded, by verdict; any other: "Recorded." */
const RECORDED: Partial<Record<ApprovalDecision["verdict"], string>> = {
  approved: "Approved. The bot goes on.",
  approved_conversation: "Approved for this conversation. The bot goes on.",
  denied: "Denied. The bot goes on without it.",
};

/** What the clicker is told when their decision was recorded. */
export function recordedText(decision: ApprovalDecision): string {
  return RECORDED[decision.verdict] ?? "Recorded.";
}

/** What a later clicker is told: who decided first, and what. */
export function decidedText(decision: ApprovalDecision): string {
  const by = decision.by ? nameOf(decision.by) : undefined;
  switch (decision.verdict) {
    case "approved":
    case "approved_conversation":
      return `${by ?? "Someone"} already approved this.`;
    case "denied":
      return `${by ?? "Someone"} already denied this.`;
    case "expired":
      return "This request expired: nobody decided in time.";
    case "cancelled":
      return "This request was cancelled: the turn was stopped.";
    case "superseded":
      return `${by ?? "Someone"} wrote instead of deciding; this request is closed.`;
  }
}

/** "15 min", "90 s", "2 h": the wait's timeout as texts name it. */
function durationOf(wait: ApprovalWait): string {
  const ms = wait.requestedAt === undefined ? undefined : wait.expiresAt - wait.requestedAt;
  if (ms === undefined || ms <= 0) return "the time allowed";
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
