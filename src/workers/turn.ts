import { freezeState, resolveConversationSkills } from "../conversation/contract.ts";
import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import { runTurn, type TurnResult } from "../core/agent/loop.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import { planTake } from "../core/agent/queue-mode.ts";
import { costMicros } from "../core/budget/usage.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { skillsBlock } from "../core/skills/index.ts";
import { tracedProvider } from "../observability/tracing-model.ts";
import { ToolSpans } from "../observability/tracing-tools.ts";
import { noteTurnEnd, traceTurn } from "../observability/tracing-turn.ts";
import { deliver, keepTyping, targetOf } from "./delivery.ts";
import { countStalledResume, giveUp, MAX_STALLED_RESUMES } from "./resume.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { openTurnStream, StreamState } from "./stream-state.ts";
import { runTool } from "./tool-runner.ts";
import { beginTurn } from "./turn-begin.ts";
import { readTurnChoices, type TurnChoices } from "./turn-choices.ts";
import { LostLeaseError, type TurnEnvironment, type TurnStart } from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";
import { TurnSteps } from "./turn-steps.ts";

/** What a turn ended as when a signal cut it short, as the partial answer shows it. */
const CUT_SHORT = {
  stop: "_(stopped)_",
  interrupt: "_(interrupted)_",
} as const;

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
    // `/queue` and `/model` apply at turn boundaries, like every change people make.
    const choices = await readTurnChoices(env, address);
    let start: TurnStart;
    let consumed: number;
    if (snap.checkpoint) {
      // A turn in progress: resumed after a crash, or given up when it keeps failing in place.
      const { checkpoint } = snap;
      start = { ...snap, checkpoint, pending: snap.pending.slice(0, checkpoint.inboxCount) };
      const keys = env.store.keys;
      if (
        (await countStalledResume(env.inbox.redis, keys, address, checkpoint)) > MAX_STALLED_RESUMES
      ) {
        await giveUp(env, address, start);
        consumed = checkpoint.inboxCount;
      } else {
        consumed = await runOneTurn(turnEnv, address, start, signal, choices);
      }
    } else if (snap.pending.length === 0) {
      if ((await env.inbox.release(address, leaseToken)) <= 0) return;
      continue;
    } else {
      const plan = planTake(snap.pending, choices.behaviour, Date.now());
      if ("waitMs" in plan) {
        // The quiet window: more of a burst may be on its way; look again when it has passed.
        await waitOrLose(plan.waitMs, signal);
        continue;
      }
      const taken = { ...snap, pending: snap.pending.slice(0, plan.take) };
      const history = await env.store.history.compactRead(address, snap.history, env.history);
      start = { ...taken, ...(await beginTurn(turnEnv, address, taken, history, signal)) };
      consumed = await runOneTurn(turnEnv, address, start, signal, choices);
    }
    const left = await env.inbox.finish(address, leaseToken, consumed);
    if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
    if (left === 0) return;
  }
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
): Promise<number> {
  const traced = {
    address,
    pending: start.pending,
    resumed: !start.contract,
    queueMode: choices.behaviour.mode,
  };
  return traceTurn(traced, () => runTracedTurn(env, address, start, signal, choices));
}

async function runTracedTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  signal: AbortSignal,
  choices: TurnChoices,
): Promise<number> {
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
  const watch = env.signals?.watch(address, checkpoint.turnId);
  let result: TurnResult;
  let streamRef = stream.ref;
  try {
    if (resumed && env.signals && watch) {
      // A stop or interrupt may have come while no worker ran this turn.
      const found = await env.signals.boundary(address, checkpoint.turnId, 0, false);
      if (found.signal) watch.abort(found.signal);
    }
    result = await askModel(
      env,
      address,
      start,
      { contract, steps, signal, watch, choices },
      (text) => stream.streamer?.update(text),
    );
  } finally {
    typing?.stop();
    watch?.done();
    streamRef = (await stream.streamer?.close()) ?? streamRef;
  }
  // A turn whose lease was lost mid-way (its model call was aborted) delivers nothing:
  // the worker that took the conversation over answers instead.
  if (signal.aborted) throw new LostLeaseError("lease lost before delivery");
  if (result.stop === "interrupted") {
    await markCutShort(env, address, steps, watch, { streamRef, resumed, pending });
  } else {
    await deliver(env, address, steps.checkpoint, pending, result.answer, { streamRef, resumed });
  }
  await recordUsage(env, address, start, result, choices);
  noteTurnEnd(contract.hash, result);
  env.observe?.turn?.({
    address,
    result,
    outcome: result.stop,
    ms: Date.now() - started,
    contractChanged: start.contractChanged ?? false,
  });
  return steps.checkpoint.inboxCount;
}

/**
 * A turn a signal cut short shows it where it was showing its answer: the
 * streamed partial is edited once to say so. A stopped turn with nothing
 * shown says it stopped; an interrupted one says nothing, since the turn
 * that follows answers.
 */
async function markCutShort(
  env: TurnEnvironment,
  address: ConversationAddress,
  steps: TurnSteps,
  watch: TurnWatch | undefined,
  shown: { streamRef: string | undefined; resumed: boolean; pending: TurnStart["pending"] },
): Promise<void> {
  const kind = watch?.signal.reason === "stop" ? "stop" : "interrupt";
  const { turnId } = steps.checkpoint;
  const partial = shown.streamRef
    ? (await new StreamState(env.inbox.redis, env.store.keys).read(address, turnId)).text
    : undefined;
  if (partial === undefined && kind === "interrupt") return;
  const text = partial !== undefined ? `${partial}\n\n${CUT_SHORT[kind]}` : "Stopped.";
  await deliver(env, address, steps.checkpoint, shown.pending, text, {
    streamRef: shown.streamRef,
    resumed: shown.resumed,
  });
}

/**
 * Counts the turn's reported usage for `/usage` and the token budgets, once
 * per turn. The answer is already out: a failure to count is logged, not
 * made the person's problem.
 */
async function recordUsage(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  result: TurnResult,
  choices: TurnChoices,
): Promise<void> {
  const last = start.pending.at(-1);
  const user = last?.user ? `${address.platform}:${last.user}` : undefined;
  try {
    await env.store.usage.record(
      { address, user },
      start.checkpoint.turnId,
      result.usage,
      costMicros(result.usage, choices.price),
      Date.now(),
    );
  } catch (error) {
    env.logger.warn("a turn's token usage could not be counted", {
      conversation: conversationKey(address),
      error: (error as Error)?.message,
    });
  }
}

/** What the loop runs under: the frozen tools, the checkpoint's writes, the lease and the signals. */
interface TurnRun {
  readonly contract: TurnContract;
  readonly steps: TurnSteps;
  readonly signal: AbortSignal;
  readonly watch: TurnWatch | undefined;
  readonly choices: TurnChoices;
}

/** The agent loop over this turn's history, tools and checkpoint. */
function askModel(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  { contract, steps, signal, watch, choices }: TurnRun,
  onText: (text: string) => void,
): Promise<TurnResult> {
  const { checkpoint, pending } = start;
  const { before, from } = env.store.history.split(address, start.history, checkpoint.historyStart);
  const skills = resolveConversationSkills(env, address, start.state);
  const last = pending.at(-1);
  const streaming = Boolean(env.outbounds[address.platform]?.canEdit && env.streamEditMs);
  const steering = choices.behaviour.mode === "steer";
  // Only /stop cuts a running tool short; an interrupt lets it finish and keeps its result.
  const stop = watch ? stopOnly(watch.signal) : undefined;
  const toolSpans = new ToolSpans();
  return runTurn({
    registry: env.registry,
    contract,
    system: buildSystemPrompt({
      persona: env.persona(address),
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
    provider: tracedProvider(env.provider),
    cacheKey: conversationKey(address),
    ...(choices.model !== undefined ? { model: choices.model } : {}),
    maxSteps: env.maxSteps,
    now: Date.now,
    signal,
    runTool: (tool, args, call) =>
      toolSpans.run(tool.id, args, () =>
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
          { timeoutMs: env.toolTimeoutMs, ...(stop ? { stop } : {}) },
        ),
      ),
    onToolCall: (name, outcome, ms) => {
      toolSpans.reported(name, outcome, ms);
      env.observe?.toolCall?.(name, outcome, ms);
    },
    ...(streaming ? { onText } : {}),
    recordCalls: steps.recordCalls,
    commit: steps.commit,
    ...(watch ? { interrupt: watch.signal } : {}),
    ...(steering ? { steer: () => steps.steer(watch) } : {}),
  });
}

/** A signal that aborts only when `signal` aborts for a stop. */
function stopOnly(signal: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const relay = () => {
    if (signal.reason === "stop") controller.abort("stop");
  };
  if (signal.aborted) relay();
  else signal.addEventListener("abort", relay, { once: true });
  return controller.signal;
}
