import { conversationCapabilities, freezeState } from "../conversation/contract.ts";
import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import type { TurnResult } from "../core/agent/loop.ts";
import { planTake } from "../core/agent/queue-mode.ts";
import type { ApprovalDecision } from "../core/approvals/approval.ts";
import { beforeTurn, noteTurnEnd, traceTurn } from "../observability/tracing-turn.ts";
import { closeRequest, openWait, wakeParked } from "./approval-wait.ts";
import { deliver, keepTyping, targetOf } from "./delivery.ts";
import { begunAt, countPickup, stalled, unbegunAt } from "./pickups.ts";
import { giveUp, giveUpUnbegun } from "./resume.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { openTurnStream } from "./stream-state.ts";
import { askModel } from "./turn-ask.ts";
import { beginTurn } from "./turn-begin.ts";
import { choicesOf, type TurnChoices } from "./turn-choices.ts";
import { countParked, countShared, markCutShort, type TurnUsage, turnUsage } from "./turn-end.ts";
import { LostLeaseError, type TurnEnvironment, type TurnStart } from "./turn-environment.ts";
import { TurnSteps } from "./turn-steps.ts";

/** How a turn ended for the drain: the inbox messages it consumed, and its usage to count. */
type TurnOutcome = EndedTurn | { readonly opened: string };

/** A turn that ended (answered, stopped, given up): the drain trims the inbox. */
interface EndedTurn {
  readonly consumed: number;
  /** The turn's usage: counted for the conversation by the inbox trim that ends the turn, then for the rest. */
  readonly usage?: TurnUsage;
}

/**
 * Runs the conversation's turns while this worker holds its lease: resumes a
 * checkpointed turn, else takes everything in the inbox as one turn, until
 * the inbox is empty and the lease is let go (atomically, see Inbox.finish).
 */
export async function drainConversation(
  env: TurnEnvironment,
  address: ConversationAddress,
  leaseToken: string,
  signal: AbortSignal,
  first?: Snapshot,
): Promise<void> {
  let next = first;
  /** The approval wait this drain opened a moment ago: its request is not posted yet. */
  let opened: string | undefined;
  for (;;) {
    if (signal.aborted) throw new LostLeaseError("lease lost");
    const snap = next ?? (await readSnapshot(env, address));
    next = undefined;
    // One registry per turn: a tool list that changes mid-turn applies at the next boundary.
    const turnEnv: TurnEnvironment = { ...env, registry: env.registry.snapshot() };
    // `/queue` and `/model` apply at turn boundaries, like every change people make.
    const choices = choicesOf(env, address, snap.state.settings);
    const lease = { token: leaseToken, signal, opened };
    opened = undefined;
    const outcome = await nextTurn(turnEnv, address, snap, lease, choices);
    if (outcome === "again") continue;
    // Parked on an approval request: the lease is let go, the checkpoint stays.
    if (outcome === "parked") return;
    if (outcome === "idle") {
      if ((await env.inbox.release(address, leaseToken)) <= 0) return;
      continue;
    }
    // A turn that just began waiting for approval: the next look posts its request and parks it.
    if ("opened" in outcome) {
      opened = outcome.opened;
      continue;
    }
    const { usage } = outcome;
    const counting = usage
      ? env.store.usage.conversationCounting(address, usage.usage, usage.costMicros, usage.now)
      : undefined;
    // The messages the turn answered (steered ones too) come back from the trim: their
    // token-budget reservations are settled with the turn's usage.
    const { left, answered } = await env.inbox.finish(
      address,
      leaseToken,
      outcome.consumed,
      counting,
    );
    if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
    // Counted for the conversation as the turn ended; the workspace and the person follow.
    if (usage) await countShared(env, usage, answered);
    if (left === 0) return;
  }
}

/**
 * The turn a snapshot calls for: a checkpointed one resumed, else the
 * inbox's messages as a new one; either is given up instead when it keeps
 * failing in place (see MAX_STALLED_PICKUPS). "idle" when there is nothing
 * to do, "again" to look at the inbox afresh (a quiet window passed, or
 * messages were given up).
 */
async function nextTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  snap: Snapshot,
  lease: { readonly token: string; readonly signal: AbortSignal; readonly opened?: string },
  choices: TurnChoices,
): Promise<TurnOutcome | "idle" | "again" | "parked"> {
  const { signal } = lease;
  const count = (at: string, takes: number) =>
    countPickup(env.inbox.redis, env.store.keys, address, { at, token: lease.token, takes });
  if (snap.checkpoint) {
    const { checkpoint } = snap;
    let decision: ApprovalDecision | undefined;
    if (checkpoint.approval) {
      // Before the pickup is counted: a parked turn woken many times (by messages, by
      // clicks that change nothing) is not stuck, and must never be given up as stalled.
      const woken = await wakeParked(env, address, {
        checkpoint: { ...checkpoint, approval: checkpoint.approval },
        pending: snap.pending,
        token: lease.token,
        choices,
        fresh: lease.opened === checkpoint.approval.id,
      });
      if (woken.kind === "parked") return "parked";
      decision = woken.decision;
    }
    const start = { ...snap, checkpoint, pending: snap.pending.slice(0, checkpoint.inboxCount) };
    if (stalled(await count(begunAt(checkpoint), checkpoint.inboxCount))) {
      await giveUp(env, address, start);
      return { consumed: checkpoint.inboxCount };
    }
    return runOneTurn(env, address, start, signal, choices, decision);
  }
  if (snap.pending.length === 0) return "idle";
  const plan = planTake(snap.pending, choices.behaviour, Date.now());
  if ("waitMs" in plan) {
    // The quiet window: more of a burst may be on its way; look again when it has passed.
    await waitOrLose(plan.waitMs, signal);
    return "again";
  }
  const taken = { ...snap, pending: snap.pending.slice(0, plan.take) };
  // Counted before the files are read: a file that kills its worker is given up like any turn.
  const pickup = await count(unbegunAt(taken.pending), plan.take);
  if (stalled(pickup)) {
    // Only what the first crashed pickup took: a message that came since gets its own turn.
    await giveUpUnbegun(env, address, taken.pending.slice(0, pickup.took), lease.token);
    return "again";
  }
  const begun = await beforeTurn(taken.pending, async () => {
    const history = await env.store.history.compactRead(address, snap.history, env.history);
    return beginTurn(env, address, taken, history, signal);
  });
  return runOneTurn(env, address, { ...taken, ...begun }, signal, choices);
}

/** Waits, unless the lease is lost meanwhile. */
async function waitOrLose(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  if (signal.aborted) throw new LostLeaseError("lease lost");
}

async function readSnapshot(env: TurnEnvironment, address: ConversationAddress): Promise<Snapshot> {
  const taken = await takeSnapshot(env.store, env.inbox, address);
  if (!taken.taken) throw new LostLeaseError("lease lost");
  return taken.snapshot;
}

/**
 * One turn from its start (new or resumed) to the delivered answer; returns
 * how many inbox messages it consumed (its own, and any steered in).
 */
function runOneTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  signal: AbortSignal,
  choices: TurnChoices,
  decision?: ApprovalDecision,
): Promise<TurnOutcome> {
  const traced = {
    address,
    pending: start.pending,
    resumed: !start.contract,
    queueMode: choices.behaviour.mode,
  };
  return traceTurn(traced, () =>
    runTracedTurn({ env, address, start, signal, choices, ...(decision ? { decision } : {}) }),
  );
}

/** What {@link runOneTurn} runs a turn with. */
interface OneTurn {
  readonly env: TurnEnvironment;
  readonly address: ConversationAddress;
  readonly start: TurnStart;
  readonly signal: AbortSignal;
  readonly choices: TurnChoices;
  /** The decision on the approval request the turn was parked on. */
  readonly decision?: ApprovalDecision;
}

async function runTracedTurn({
  env,
  address,
  start,
  signal,
  choices,
  decision,
}: OneTurn): Promise<TurnOutcome> {
  const started = Date.now();
  const { checkpoint, pending } = start;
  const resumed = start.contract === undefined;
  let contract = start.contract ?? freezeState(env, address, start.state, checkpoint.loaded);
  if (checkpoint.contractHash !== contract.hash) {
    env.logger.warn(
      "the tools changed while this turn was interrupted; it resumes with the current ones",
      { conversation: conversationKey(address), turnId: checkpoint.turnId },
    );
  }
  // Resumed with a decision: the request shows it (once) before any call of the step runs.
  const wait = checkpoint.approval;
  if (wait && decision) {
    contract = await closeRequest(env, address, checkpoint, pending, decision, contract);
  }
  const outbound = env.outbounds[address.platform];
  const target = targetOf(address, pending.at(-1));
  const typing = outbound ? keepTyping(() => outbound.typing(target)) : undefined;
  const stream = await openTurnStream(env, address, checkpoint.turnId, target, resumed, signal);
  const capabilities = conversationCapabilities(env, address, start.state);
  const steps = new TurnSteps(env, address, checkpoint, signal, capabilities, start.begun);
  // The streamed message is posted under this turn's id: the turn must be stored first.
  if (stream.streamer) await steps.durable();
  const watch = env.signals?.watch(address, checkpoint.turnId);
  let result: TurnResult;
  let streamRef = stream.ref;
  try {
    if (resumed && env.signals && watch) {
      // A stop or interrupt may have come while no worker ran this turn.
      const found = await env.signals.boundary(address, checkpoint.turnId, 0, false);
      if (found.signal) watch.abort(found.signal);
      // Cancelled by a message in the interrupt mode: the turn ends as interrupted ones do.
      if (decision?.verdict === "cancelled" && !watch.signal.aborted) watch.abort("interrupt");
    }
    const approval =
      wait && decision
        ? {
            wait,
            decision,
            claim: (call: { id: string }) => env.store.approvals.claim(address, wait.id, call.id),
          }
        : undefined;
    result = await askModel(
      env,
      address,
      start,
      { contract, steps, signal, watch, choices, capabilities, ...(approval ? { approval } : {}) },
      (text) => stream.streamer?.update(text),
    );
    // The text streamed before the ask stays shown, whole, while the turn waits.
    if (result.stop === "awaiting_approval") await stream.streamer?.flush();
  } finally {
    typing?.stop();
    watch?.done();
    streamRef = (await stream.streamer?.close()) ?? streamRef;
  }
  // A turn whose lease was lost mid-way (its model call was aborted) delivers nothing:
  // the worker that took the conversation over answers instead.
  if (signal.aborted) throw new LostLeaseError("lease lost before delivery");
  // Every step is stored before the answer leaves, so a crash from here on resumes at delivery.
  await steps.durable();
  if (result.stop === "awaiting_approval") {
    // The text streamed before the ask stays in the streamed message, which the answer
    // replaces by an edit once the turn resumes (the same message under the same key):
    // one message for the answer, the request posted below it.
    const opened = await openWait(env, address, steps, result.pending ?? [], pending.at(-1));
    // What the model cost so far is counted now (once, by the wait's id); the resumed run counts the rest.
    if (result.error?.kind !== "unconfigured") {
      await countParked(env, turnUsage(address, start, result, choices), opened.id);
    }
    return { opened: opened.id };
  }
  if (result.stop === "interrupted") {
    await markCutShort(env, address, steps, watch, { streamRef, resumed, pending });
  } else {
    const { files } = steps.checkpoint;
    await deliver(env, address, steps.checkpoint, pending, result.answer, {
      streamRef,
      resumed,
      files,
    });
  }
  noteTurnEnd(contract.hash, result);
  env.observe?.turn?.({
    address,
    result,
    outcome: result.stop,
    ms: Date.now() - started,
    contractChanged: (await start.contractChanged) ?? false,
  });
  // A turn that reached no model (none is configured) spent nothing: /usage and the budgets count it not at all.
  const reachedModel = result.error?.kind !== "unconfigured";
  return {
    consumed: steps.checkpoint.inboxCount,
    ...(reachedModel ? { usage: turnUsage(address, start, result, choices) } : {}),
  };
}
