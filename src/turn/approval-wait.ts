import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ApprovalDecision, ApprovalWait, PendingCall } from "../core/approvals/approval.ts";
import { outcomeText } from "../core/approvals/outcome.ts";
import { requestText } from "../core/approvals/request.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../core/conversation.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { targetOf } from "../delivery/delivery.ts";
import { approvalPayload } from "../ports/approvals.ts";
import type { DeliveryTarget, MessageControl } from "../ports/outbound.ts";
import { newApprovalId } from "../store/index.ts";
import { approvalPolicyOf } from "./approval-policy.ts";
import type { CheckpointWrites } from "./checkpoint-writes.ts";
import { LostLeaseError, type TurnChoices, type TurnEnvironment } from "./turn-environment.ts";

/**
 * The durable approval wait, the worker's side. A turn whose step calls a
 * tool under `ask` stores the wait in its checkpoint ({@link openWait}),
 * posts the request once, schedules its expiry and parks: the lease is let
 * go although the checkpoint remains ({@link wakeParked}). Whatever wakes
 * the conversation later (a decision, `/stop`, a message, the expiry, or
 * any job at all) comes back here: without a decision the turn parks again
 * at once, never counted as a pickup; with one, the turn resumes from its
 * checkpoint on whichever worker took the job.
 */

/** The request's buttons: approve, approve for this conversation, deny, show the full arguments. */
export function requestControls(id: string): readonly MessageControl[] {
  return [
    { payload: approvalPayload(id, "approve"), label: "Approve", style: "primary" },
    {
      payload: approvalPayload(id, "approve_conversation"),
      label: "Approve for this conversation",
    },
    { payload: approvalPayload(id, "deny"), label: "Deny", style: "danger" },
    { payload: approvalPayload(id, "show"), label: "Show arguments" },
  ];
}

/** The idempotency key of a step's request: the same in every run of the turn. */
export function requestKey(turnId: string, step: number): string {
  return `${turnId}-ask-${step}`;
}

/**
 * Stores the wait of a step whose calls need a decision: a fresh id (indexed
 * first, so a click always finds its conversation), who asked, and when it
 * runs out under the conversation's policy.
 */
export async function openWait(
  env: TurnEnvironment,
  address: ConversationAddress,
  /** The turn's checkpoint writes. */
  steps: CheckpointWrites,
  pending: readonly PendingCall[],
  requester: InboundMessage | undefined,
): Promise<ApprovalWait> {
  await steps.durable();
  const now = Date.now();
  const policy = policyOf(env, address);
  const wait: ApprovalWait = {
    id: newApprovalId(),
    step: steps.checkpoint.step,
    calls: pending,
    requester: {
      user: requester?.user ?? "",
      ...(requester?.userName ? { name: requester.userName } : {}),
    },
    requestedAt: now,
    expiresAt: now + policy.timeoutMs,
  };
  await env.store.approvals.index(wait.id, address, policy.timeoutMs);
  await steps.awaitApproval(wait);
  return wait;
}

/** What waking a parked turn came to. */
export type Woken =
  | { readonly kind: "parked" }
  | { readonly kind: "decided"; readonly decision: ApprovalDecision };

/** Where a parked turn stands, as the worker that took the conversation read it. */
export interface ParkedTurn {
  readonly checkpoint: Checkpoint & { readonly approval: ApprovalWait };
  /** The inbox as read: the turn's own messages, then any that came since. */
  readonly pending: readonly InboundMessage[];
  readonly token: string;
  readonly choices: TurnChoices;
  /** The wait was opened by this worker a moment ago: its request surely is not posted yet. */
  readonly fresh: boolean;
}

/**
 * Takes a parked turn back: the decision if there is one (or the clock,
 * `/stop` or a new message makes one now), else the request is made sure
 * of (posted once, its expiry scheduled) and the turn parks again.
 */
export async function wakeParked(
  env: TurnEnvironment,
  address: ConversationAddress,
  parked: ParkedTurn,
): Promise<Woken> {
  let { checkpoint } = parked;
  const wait = () => checkpoint.approval;
  const mode = parked.choices.behaviour.mode;
  const wakeOnMessage = mode === "steer" || mode === "interrupt";
  let fresh = parked.fresh;
  for (;;) {
    const decision = await decisionNow(env, address, checkpoint, parked, wakeOnMessage);
    if (decision) return { kind: "decided", decision };
    checkpoint = await ensureRequested(env, address, checkpoint, parked.pending, fresh);
    fresh = false;
    const outcome = await env.inbox.park(address, parked.token, {
      approvalId: wait().id,
      turnId: checkpoint.turnId,
      consumed: checkpoint.inboxCount,
      wakeOnMessage,
    });
    if (outcome === "lost") throw new LostLeaseError("lease lost while parking a turn");
    if (outcome === "parked") return { kind: "parked" };
  }
}

/**
 * The decision on the wait: a person's, else one the worker records now
 * (first wins, through the same script as a click): `cancelled` for a stop
 * or interrupt signal, or a message in the `interrupt` mode; `superseded`
 * for a message in the `steer` mode; `expired` once the clock says so.
 */
async function decisionNow(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: ParkedTurn["checkpoint"],
  parked: ParkedTurn,
  wakeOnMessage: boolean,
): Promise<ApprovalDecision | undefined> {
  const { approval: wait } = checkpoint;
  const stored = await env.store.approvals.read(address, wait.id);
  if (stored.decision) return stored.decision;
  const now = Date.now();
  let made: ApprovalDecision | undefined;
  const signal = env.signals
    ? (await env.signals.boundary(address, checkpoint.turnId, 0, false)).signal
    : undefined;
  const since = wakeOnMessage ? await messagesSince(env, address, checkpoint) : [];
  const writer = since[0];
  if (signal) made = { verdict: "cancelled", at: now };
  else if (writer) {
    made = {
      verdict: parked.choices.behaviour.mode === "steer" ? "superseded" : "cancelled",
      by: { user: writer.user, ...(writer.userName ? { name: writer.userName } : {}) },
      at: now,
    };
  } else if (now >= wait.expiresAt - expirySlack(wait)) made = { verdict: "expired", at: now };
  if (!made) return undefined;
  const outcome = await env.store.approvals.decide(address, wait.id, made);
  if (outcome.kind === "unknown") throw new LostLeaseError("the parked turn changed meanwhile");
  return outcome.decision;
}

/**
 * How early the worker lets a wait run out: the expiry job is timed by the
 * clock of the process that queued it, and one that fires a moment early
 * by this worker's clock must not park the turn again with no expiry left
 * to come. A tenth of the timeout, at most 2 s.
 */
function expirySlack(wait: ApprovalWait): number {
  const timeout = wait.expiresAt - (wait.requestedAt ?? wait.expiresAt);
  return Math.min(2_000, Math.max(0, timeout / 10));
}

/** The inbox's messages after the turn's own, read now. */
async function messagesSince(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
): Promise<InboundMessage[]> {
  const inbox = env.inbox.keysOf(address).inbox;
  const raw = await env.inbox.redis.lrange(inbox, checkpoint.inboxCount, -1);
  return raw.map((text) => JSON.parse(text) as InboundMessage);
}

/**
 * Posts the request unless its ref is stored (once: the idempotency key is
 * the turn's and the step's, and a post a crashed run may have made is
 * looked up), records the ref, and schedules the expiry (once, by job id).
 */
async function ensureRequested(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: ParkedTurn["checkpoint"],
  pending: readonly InboundMessage[],
  fresh: boolean,
): Promise<ParkedTurn["checkpoint"]> {
  const wait = checkpoint.approval;
  if (env.approvals) await env.approvals.scheduleExpiry(address, wait.id, wait.expiresAt);
  if (wait.requestRef !== undefined) return checkpoint;
  const outbound = env.outbounds[address.platform];
  if (!outbound) {
    env.logger.warn("no outbound for this platform; the approval request is not posted", {
      conversation: conversationKey(address),
    });
    return checkpoint;
  }
  const target = requestTarget(address, checkpoint, pending);
  const policy = policyOf(env, address);
  const ref = await outbound.post(target, requestText(wait, policy), {
    idempotencyKey: requestKey(checkpoint.turnId, wait.step),
    mayExist: !fresh,
    controls: requestControls(wait.id),
  });
  const next = { ...checkpoint, approval: { ...wait, requestRef: ref } };
  const stored = await env.store.turns.writeCheckpoint(address, next, {
    turnId: checkpoint.turnId,
    step: checkpoint.step,
  });
  if (!stored) throw new LostLeaseError("another worker took the parked turn over");
  return next;
}

/** The conversation's approval policy: the desk's (which may be given one), else the config's. */
function policyOf(env: TurnEnvironment, address: ConversationAddress) {
  return env.approvals?.policyFor(address) ?? approvalPolicyOf(env.config(), address);
}

/** Where the request goes: where the turn's answer will, in reply to the message that asked. */
function requestTarget(
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
): DeliveryTarget {
  return targetOf(address, pending.slice(0, checkpoint.inboxCount).at(-1));
}

/**
 * Closes the request a resumed turn was parked on, before its calls run:
 * the message is edited once to the outcome (its buttons go), and
 * "approve for this conversation" turns the tools `on` at conversation
 * scope (a person decided: rule 8). Returns the contract the rest of the
 * turn runs with: tools approved for the conversation no longer wait.
 */
export async function closeRequest(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
  decision: ApprovalDecision,
  contract: TurnContract,
): Promise<TurnContract> {
  const wait = checkpoint.approval;
  if (!wait) return contract;
  const tools = [...new Set(wait.calls.map((c) => c.tool))];
  if (decision.verdict === "approved_conversation") {
    for (const key of tools) {
      await env.store.intent.apply(address, { kind: "set", key, value: "on" });
    }
  }
  await showOutcome(env, address, checkpoint, pending, decision);
  if (decision.verdict !== "approved_conversation") return contract;
  return { ...contract, asking: new Set([...contract.asking].filter((t) => !tools.includes(t))) };
}

/** Edits the request to its outcome, once: its buttons go. */
async function showOutcome(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
  decision: ApprovalDecision,
): Promise<void> {
  const wait = checkpoint.approval;
  if (!wait) return;
  const stored = await env.store.approvals.read(address, wait.id);
  const outbound = env.outbounds[address.platform];
  if (!stored.edited && wait.requestRef !== undefined && outbound) {
    const target = requestTarget(address, checkpoint, pending);
    await outbound.edit(target, wait.requestRef, outcomeText(wait, decision));
    // Marked after the edit: a crash in between edits it twice with the same words, never not at all.
    await env.store.approvals.markEdited(address, wait.id);
  }
}

/**
 * A turn given up (it kept failing) while a request of it was open: the
 * request is decided `cancelled` unless someone decided first (a later
 * click is told), and edited to that outcome, so no button is left that
 * does nothing.
 */
export async function closeGivenUpRequest(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
): Promise<void> {
  const wait = checkpoint.approval;
  if (!wait) return;
  const outcome = await env.store.approvals.decide(address, wait.id, {
    verdict: "cancelled",
    at: Date.now(),
  });
  if (outcome.kind === "unknown") return;
  await showOutcome(env, address, checkpoint, pending, outcome.decision);
}
