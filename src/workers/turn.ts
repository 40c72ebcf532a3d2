import { randomUUID } from "node:crypto";
import type { Outbounds } from "../channels/outbound.ts";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../core/agent/inbound.ts";
import { runTurn, type ToolOutcome, type TurnResult } from "../core/agent/loop.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import type { Provider } from "../core/agent/provider.ts";
import type { LoggerPort } from "../core/availability/warnings.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { skillsBlock } from "../core/skills/index.ts";
import type { HistoryReading } from "../store/index.ts";
import { encodeMessage } from "../store/message-json.ts";
import {
  type ContractSources,
  type ConversationState,
  freezeState,
  resolveConversationSkills,
} from "./contract.ts";
import { deliver, keepTyping, partKey, targetOf } from "./delivery.ts";
import type { Inbox } from "./inbox.ts";
import {
  countStalledResume,
  GAVE_UP,
  giveUpFields,
  giveUpText,
  MAX_STALLED_RESUMES,
} from "./resume.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { StreamState } from "./stream-state.ts";
import { StreamingReply } from "./streaming.ts";
import { runTool } from "./tool-runner.ts";

/** Everything a turn needs from the process around it. */
export interface TurnEnvironment extends ContractSources {
  readonly inbox: Inbox;
  readonly provider: Provider;
  readonly outbounds: Outbounds;
  readonly persona: string;
  readonly maxSteps: number;
  readonly toolTimeoutMs: number;
  readonly history: { readonly maxTokens: number; readonly keepLast: number };
  /** Stream answers by editing the posted message at most this often (ms); 0 or unset: no streaming. */
  readonly streamEditMs?: number;
  readonly logger: LoggerPort;
  readonly observe?: TurnObserver;
}

/** Hooks for metrics; every one optional. */
export interface TurnObserver {
  turn?(info: {
    address: ConversationAddress;
    result: TurnResult | undefined;
    outcome: string;
    ms: number;
    contractChanged: boolean;
  }): void;
  toolCall?(tool: string, outcome: ToolOutcome, ms: number): void;
}

/** The lease was lost to another worker: stop without writing or delivering anything more. */
export class LostLeaseError extends Error {
  override readonly name = "LostLeaseError";
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
  for (;;) {
    if (signal.aborted) throw new LostLeaseError("lease lost");
    const snap = next ?? (await readSnapshot(env, address));
    next = undefined;
    // One registry per turn: a tool list that changes mid-turn applies at the next boundary.
    const turnEnv: TurnEnvironment = { ...env, registry: env.registry.snapshot() };
    let checkpoint = snap.checkpoint;
    let history = snap.history;
    let contractChanged = false;
    let frozen: TurnContract | undefined;
    let pending = snap.pending;
    if (!checkpoint) {
      if (pending.length === 0) {
        const left = await env.inbox.release(address, leaseToken);
        if (left <= 0) return;
        continue;
      }
      history = await env.store.history.compactRead(address, history, env.history);
      let contract: TurnContract;
      ({ checkpoint, history, contract, contractChanged } = await beginTurn(
        turnEnv,
        address,
        snap,
        history,
      ));
      frozen = contract;
    } else {
      pending = pending.slice(0, checkpoint.inboxCount);
      const stalled = await countStalledResume(
        env.inbox.redis,
        env.store.keys,
        address,
        checkpoint,
      );
      if (stalled > MAX_STALLED_RESUMES) {
        await giveUp(env, address, { checkpoint, pending, history, state: snap.state });
      } else {
        await runOneTurn(
          turnEnv,
          address,
          { checkpoint, pending, history, state: snap.state },
          signal,
        );
      }
      const left = await env.inbox.finish(address, leaseToken, checkpoint.inboxCount);
      if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
      if (left === 0) return;
      continue;
    }
    await runOneTurn(
      turnEnv,
      address,
      { checkpoint, pending, history, state: snap.state, contract: frozen, contractChanged },
      signal,
    );
    const left = await env.inbox.finish(address, leaseToken, checkpoint.inboxCount);
    if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
    if (left === 0) return;
  }
}

async function readSnapshot(env: TurnEnvironment, address: ConversationAddress): Promise<Snapshot> {
  const taken = await takeSnapshot(env.store, env.inbox, address);
  if (!taken.taken) throw new LostLeaseError("lease lost");
  return taken.snapshot;
}

/**
 * Starts a turn: the person's messages join history and the checkpoint is
 * written, in one script. The contract's hash is remembered per conversation
 * at the same time, for the "contract changed" metric.
 */
async function beginTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  snap: Snapshot,
  history: HistoryReading,
): Promise<{
  checkpoint: Checkpoint;
  history: HistoryReading;
  contract: TurnContract;
  contractChanged: boolean;
}> {
  const input = snap.pending.map(userMessage);
  const contract = freezeState(env, address, snap.state);
  const checkpoint: Checkpoint = {
    v: 1,
    turnId: randomUUID(),
    step: 1,
    historyStart: history.raw.length,
    inboxCount: snap.pending.length,
    contractHash: contract.hash,
    loaded: [],
    delivered: [],
  };
  const { began, previousContractHash } = await env.store.turns.beginTurn(
    address,
    input,
    checkpoint,
  );
  if (!began) throw new LostLeaseError("another worker began this turn");
  return {
    checkpoint,
    history: {
      raw: [...history.raw, ...input.map(encodeMessage)],
      trimmed: history.trimmed,
      messages: [...history.messages, ...input],
    },
    contract,
    contractChanged: previousContractHash !== null && previousContractHash !== contract.hash,
  };
}

/** Where a turn starts from: its checkpoint and what the turn boundary read. */
interface TurnStart {
  readonly checkpoint: Checkpoint;
  readonly pending: readonly InboundMessage[];
  readonly history: HistoryReading;
  readonly state: ConversationState;
  /** Frozen when the turn began in this run; absent for a resumed turn, which freezes anew. */
  readonly contract?: TurnContract | undefined;
  readonly contractChanged?: boolean;
}

async function runOneTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  signal: AbortSignal,
): Promise<void> {
  const started = Date.now();
  const { pending, history, state } = start;
  const contractChanged = start.contractChanged ?? false;
  let checkpoint = start.checkpoint;
  const { before, from } = env.store.history.split(address, history, checkpoint.historyStart);
  const contract = start.contract ?? freezeState(env, address, state, checkpoint.loaded);
  const skills = resolveConversationSkills(env, address, state);
  if (checkpoint.contractHash !== contract.hash) {
    env.logger.warn(
      "the tools changed while this turn was interrupted; it resumes with the current ones",
      {
        conversation: conversationKey(address),
        turnId: checkpoint.turnId,
      },
    );
  }
  const last = pending.at(-1);
  const outbound = env.outbounds[address.platform];
  const target = targetOf(address, last);
  const typing = outbound ? keepTyping(() => outbound.typing(target)) : undefined;
  const resumed = start.contract === undefined;
  const streams = new StreamState(env.inbox.redis, env.store.keys);
  const turnId = checkpoint.turnId;
  // A resumed turn may have streamed into a message already, at any step: go on editing that one.
  const stored = resumed ? await streams.read(address, turnId) : {};
  let streamRef = stored.ref;
  const streamer =
    outbound?.canEdit && env.streamEditMs
      ? new StreamingReply({
          outbound,
          target,
          // The streamed message is the answer's first part, under that part's key.
          idempotencyKey: partKey(turnId, 0),
          intervalMs: env.streamEditMs,
          ref: stored.ref,
          mayExist: resumed,
          onPosted: (ref, text) => streams.posted(address, turnId, ref, text),
          onShown: (text) => streams.shown(address, turnId, text),
        })
      : undefined;
  let result: TurnResult;
  try {
    result = await runTurn({
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
      ...(streamer ? { onText: (text: string) => streamer.update(text) } : {}),
      recordCalls: async (step, message) => {
        if (signal.aborted) throw new LostLeaseError("lease lost");
        const next: Checkpoint = { ...checkpoint, calling: { step, message } };
        const expected = { turnId: checkpoint.turnId, step: checkpoint.step };
        if (!(await env.store.turns.writeCheckpoint(address, next, expected))) {
          throw new LostLeaseError("another worker took the turn over");
        }
        checkpoint = next;
      },
      commit: async (step) => {
        if (signal.aborted) throw new LostLeaseError("lease lost");
        const newLoads = step.loaded.filter((id) => !checkpoint.loaded.includes(id));
        // The step's calls are in history now; the record of them is done with.
        const { calling: _done, ...rest } = checkpoint;
        const next: Checkpoint = {
          ...rest,
          step: step.step + 1,
          loaded: step.loaded,
          contractHash: step.contractHash,
        };
        if (!(await env.store.turns.commitStep(address, step.messages, next))) {
          throw new LostLeaseError("another worker took the turn over");
        }
        checkpoint = next;
        // Discovery loads stay mounted for the rest of the conversation.
        if (newLoads.length > 0)
          await env.store.intent.apply(address, { kind: "mount", ids: newLoads });
      },
    });
  } finally {
    typing?.stop();
    streamRef = (await streamer?.close()) ?? streamRef;
  }
  // A turn whose lease was lost mid-way (its model call was aborted) delivers nothing:
  // the worker that took the conversation over answers instead.
  if (signal.aborted) throw new LostLeaseError("lease lost before delivery");
  await deliver(env, address, checkpoint, pending, result.answer, { streamRef, resumed });
  env.observe?.turn?.({
    address,
    result,
    outcome: result.stop,
    ms: Date.now() - started,
    contractChanged,
  });
}

function userMessage(message: InboundMessage): ChatMessage {
  const name = (message.userName ?? message.user).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const attachments = message.attachments.length
    ? `\n[attachments: ${message.attachments.map((a) => a.name).join(", ")}]`
    : "";
  return { role: "user", content: `${message.text}${attachments}`, ...(name ? { name } : {}) };
}

/**
 * Ends a turn that kept failing without moving on: says what it can (the
 * answer, if only delivery was left; the streamed partial, finished with a
 * note; else an apology), and lets the conversation move on even when that
 * last word cannot be delivered either.
 */
async function giveUp(env: TurnEnvironment, address: ConversationAddress, start: TurnStart) {
  const { checkpoint, pending, history } = start;
  const fields = giveUpFields(address, checkpoint);
  env.logger.warn("giving up on a turn that failed repeatedly", fields);
  const stream = await new StreamState(env.inbox.redis, env.store.keys).read(
    address,
    checkpoint.turnId,
  );
  const { from } = env.store.history.split(address, history, checkpoint.historyStart);
  const text = giveUpText(from, stream.text);
  try {
    await deliver(env, address, checkpoint, pending, text, {
      streamRef: stream.ref,
      resumed: true,
    });
  } catch (error) {
    env.logger.warn("a turn given up could not deliver its answer; sending the apology alone", {
      ...fields,
      error: (error as Error)?.message,
    });
    const outbound = env.outbounds[address.platform];
    await outbound
      ?.post(targetOf(address, pending.at(-1)), GAVE_UP, {
        idempotencyKey: `${checkpoint.turnId}-gave-up`,
        mayExist: true,
      })
      .catch((again: unknown) =>
        env.logger.warn("a turn given up could not say so; the conversation moves on", {
          ...fields,
          error: (again as Error)?.message,
        }),
      );
  }
}
