import { freezeState, resolveConversationSkills } from "../conversation/contract.ts";
import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import { runTurn, type TurnResult } from "../core/agent/loop.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { skillsBlock } from "../core/skills/index.ts";
import { deliver, keepTyping, targetOf } from "./delivery.ts";
import { countStalledResume, giveUp, MAX_STALLED_RESUMES } from "./resume.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { openTurnStream } from "./stream-state.ts";
import { runTool } from "./tool-runner.ts";
import { beginTurn } from "./turn-begin.ts";
import { LostLeaseError, type TurnEnvironment, type TurnStart } from "./turn-environment.ts";
import { TurnSteps } from "./turn-steps.ts";

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
  for (;;) {
    if (signal.aborted) throw new LostLeaseError("lease lost");
    const snap = next ?? (await readSnapshot(env, address));
    next = undefined;
    // One registry per turn: a tool list that changes mid-turn applies at the next boundary.
    const turnEnv: TurnEnvironment = { ...env, registry: env.registry.snapshot() };
    let start: TurnStart;
    if (snap.checkpoint) {
      // A turn in progress: resumed after a crash, or given up when it keeps failing in place.
      const { checkpoint } = snap;
      start = { ...snap, checkpoint, pending: snap.pending.slice(0, checkpoint.inboxCount) };
      const keys = env.store.keys;
      if (
        (await countStalledResume(env.inbox.redis, keys, address, checkpoint)) > MAX_STALLED_RESUMES
      ) {
        await giveUp(env, address, start);
      } else {
        await runOneTurn(turnEnv, address, start, signal);
      }
    } else if (snap.pending.length === 0) {
      if ((await env.inbox.release(address, leaseToken)) <= 0) return;
      continue;
    } else {
      const history = await env.store.history.compactRead(address, snap.history, env.history);
      start = { ...snap, ...(await beginTurn(turnEnv, address, snap, history)) };
      await runOneTurn(turnEnv, address, start, signal);
    }
    const left = await env.inbox.finish(address, leaseToken, start.checkpoint.inboxCount);
    if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
    if (left === 0) return;
  }
}

async function readSnapshot(env: TurnEnvironment, address: ConversationAddress): Promise<Snapshot> {
  const taken = await takeSnapshot(env.store, env.inbox, address);
  if (!taken.taken) throw new LostLeaseError("lease lost");
  return taken.snapshot;
}

/** One turn from its start (new or resumed) to the delivered answer. */
async function runOneTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  signal: AbortSignal,
): Promise<void> {
  const started = Date.now();
  const { checkpoint, pending } = start;
  const resumed = start.contract === undefined;
  const contract = start.contract ?? freezeState(env, address, start.state, checkpoint.loaded);
  if (checkpoint.contractHash !== contract.hash) {
    env.logger.warn(
      "the tools changed while this turn was interrupted; it resumes with the current ones",
      { conversation: conversationKey(address), turnId: checkpoint.turnId },
    );
  }
  const outbound = env.outbounds[address.platform];
  const target = targetOf(address, pending.at(-1));
  const typing = outbound ? keepTyping(() => outbound.typing(target)) : undefined;
  const stream = await openTurnStream(env, address, checkpoint.turnId, target, resumed);
  const steps = new TurnSteps(env, address, checkpoint, signal);
  let result: TurnResult;
  let streamRef = stream.ref;
  try {
    result = await askModel(env, address, start, contract, steps, signal, (text) =>
      stream.streamer?.update(text),
    );
  } finally {
    typing?.stop();
    streamRef = (await stream.streamer?.close()) ?? streamRef;
  }
  // A turn whose lease was lost mid-way (its model call was aborted) delivers nothing:
  // the worker that took the conversation over answers instead.
  if (signal.aborted) throw new LostLeaseError("lease lost before delivery");
  await deliver(env, address, steps.checkpoint, pending, result.answer, { streamRef, resumed });
  env.observe?.turn?.({
    address,
    result,
    outcome: result.stop,
    ms: Date.now() - started,
    contractChanged: start.contractChanged ?? false,
  });
}

/** The agent loop over this turn's history, tools and checkpoint. */
function askModel(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  contract: TurnContract,
  steps: TurnSteps,
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<TurnResult> {
  const { checkpoint, pending } = start;
  const { before, from } = env.store.history.split(address, start.history, checkpoint.historyStart);
  const skills = resolveConversationSkills(env, address, start.state);
  const last = pending.at(-1);
  const streaming = Boolean(env.outbounds[address.platform]?.canEdit && env.streamEditMs);
  return runTurn({
    registry: env.registry,
    contract,
    system: buildSystemPrompt({
      persona: env.persona,
      catalog: contract.catalog,
      blocks: [skillsBlock(skills.enabled)],
    }),
    history: before,
    turn: from,
    step: checkpoint.step - 1,
    loaded: checkpoint.loaded,
    ...(checkpoint.calling?.step === checkpoint.step
      ? { calling: checkpoint.calling.message }
      : {}),
    provider: env.provider,
    cacheKey: conversationKey(address),
    maxSteps: env.maxSteps,
    now: Date.now,
    signal,
    runTool: (tool, args, call) =>
      runTool(
        tool,
        args,
        call,
        {
          ...address,
          ...(last?.thread !== undefined ? { thread: last.thread } : {}),
          user: last?.user ?? "",
          skills,
          callKey: `${checkpoint.turnId}.${call.id}`,
        },
        { timeoutMs: env.toolTimeoutMs },
      ),
    onToolCall: (name, outcome, ms) => env.observe?.toolCall?.(name, outcome, ms),
    ...(streaming ? { onText } : {}),
    recordCalls: steps.recordCalls,
    commit: steps.commit,
  });
}
