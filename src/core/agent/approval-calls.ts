import type { ApprovalDecision, ApprovalWait, PendingCall } from "../approvals/approval.ts";
import { approves, notRunResult, STOPPED_WHILE_RUNNING } from "../approvals/outcome.ts";
import type { TurnContract } from "../loading/freeze.ts";
import { answerCall, type CallAnswer, type CallRunner } from "./answer-call.ts";
import type { ToolCall } from "./messages.ts";

/**
 * The decision on a parked turn's request, handed to the loop that resumes
 * it: the step's calls (`calling`) are answered by it. Approved calls run
 * once each (each claimed before it starts); the others get a result that
 * says what happened and who decided.
 */
export interface DecidedApproval {
  readonly wait: ApprovalWait;
  readonly decision: ApprovalDecision;
  /** Claims an approved call before it runs: false when a crashed run of the turn claimed it already. */
  readonly claim: (call: ToolCall) => Promise<boolean>;
}

/** The calls of a step that wait for a person: a callable tool under `ask`, in call order. */
export function askingCalls(contract: TurnContract, calls: readonly ToolCall[]): PendingCall[] {
  return calls
    .filter((c) => contract.asking.has(c.function.name) && contract.callable.has(c.function.name))
    .map((c) => ({ callId: c.id, tool: c.function.name, arguments: c.function.arguments }));
}

/**
 * One call's answer in a step that may have waited for approval: as the
 * decision says for a call that waited, else as usual (a call of the same
 * step that needed no approval runs now, like any other).
 */
export async function answerDecided(
  input: CallRunner,
  contract: TurnContract,
  call: ToolCall,
  approval: DecidedApproval | undefined,
  now: () => number,
): Promise<CallAnswer> {
  const waited = approval?.wait.calls.some((c) => c.callId === call.id);
  if (!approval || !waited) return answerCall(input, contract, call, now);
  if (!approves(approval.decision)) {
    return { output: notRunResult(approval.wait, approval.decision), load: [] };
  }
  // Claimed before it starts: a run that dies while it runs never runs it again.
  if (!(await approval.claim(call))) return { output: STOPPED_WHILE_RUNNING, load: [] };
  return answerCall(input, contract, call, now);
}
