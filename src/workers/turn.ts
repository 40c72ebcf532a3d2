import { randomUUID } from "node:crypto";
import type { DeliveryTarget, Outbounds } from "../channels/outbound.ts";
import { splitMessage } from "../channels/split.ts";
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
import { type ContractSources, freezeConversation } from "./contract.ts";
import type { Inbox } from "./inbox.ts";
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

/** Gives up on a turn that crashed its worker this many times, so one poison message cannot wedge a conversation. */
const MAX_RESUMES = 3;

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
): Promise<void> {
  for (;;) {
    if (signal.aborted) throw new LostLeaseError("lease lost");
    let checkpoint = await env.store.turns.readCheckpoint(address);
    let pending: InboundMessage[];
    if (!checkpoint) {
      pending = await env.inbox.pending(address);
      if (pending.length === 0) {
        const left = await env.inbox.release(address, leaseToken);
        if (left <= 0) return;
        continue;
      }
      checkpoint = await beginTurn(env, address, pending.length);
    } else {
      pending = (await env.inbox.pending(address)).slice(0, checkpoint.inboxCount);
      const resumes = await countResume(env, address, checkpoint);
      if (resumes > MAX_RESUMES) {
        env.logger.warn("giving up on a turn that failed repeatedly", {
          conversation: conversationKey(address),
          turnId: checkpoint.turnId,
          resumes,
        });
        await deliver(
          env,
          address,
          checkpoint,
          pending,
          "Sorry — something went wrong while answering this, and I gave up after several tries. Please send your message again.",
        );
        const left = await env.inbox.finish(address, leaseToken, checkpoint.inboxCount);
        if (left <= 0) return;
        continue;
      }
    }
    await runOneTurn(env, address, checkpoint, pending, signal);
    const left = await env.inbox.finish(address, leaseToken, checkpoint.inboxCount);
    if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
    if (left === 0) return;
  }
}

async function beginTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  inboxCount: number,
): Promise<Checkpoint> {
  await env.store.history.compact(address, env.history);
  const checkpoint: Checkpoint = {
    v: 1,
    turnId: randomUUID(),
    step: 0,
    historyStart: await env.store.history.length(address),
    inboxCount,
    contractHash: "",
    loaded: [],
    delivered: [],
  };
  await env.store.turns.writeCheckpoint(address, checkpoint);
  return checkpoint;
}

async function runOneTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: Checkpoint,
  pending: readonly InboundMessage[],
  signal: AbortSignal,
): Promise<void> {
  const started = Date.now();
  let checkpoint = start;
  if (checkpoint.step === 0) {
    const next = { ...checkpoint, step: 1 };
    if (!(await env.store.turns.commitStep(address, pending.map(userMessage), next))) {
      throw new LostLeaseError("another worker took the turn over");
    }
    checkpoint = next;
  }

  const history = await env.store.history.load(address);
  const before = history.slice(0, checkpoint.historyStart);
  const turn = history.slice(checkpoint.historyStart);
  const contract = await freezeConversation(env, address, checkpoint.loaded);
  const contractChanged = await noteContractHash(env, address, contract.hash, checkpoint);
  if (checkpoint.contractHash === "") {
    checkpoint = { ...checkpoint, contractHash: contract.hash };
  } else if (checkpoint.contractHash !== contract.hash) {
    env.logger.warn(
      "the tools changed while this turn was interrupted; it resumes with the current ones",
      {
        conversation: conversationKey(address),
        turnId: checkpoint.turnId,
      },
    );
  }

  const last = pending.at(-1);
  const target: DeliveryTarget = {
    ...address,
    ...(last?.thread ? { thread: last.thread } : {}),
    ...(last?.messageRef ? { replyTo: last.messageRef } : {}),
  };
  const outbound = env.outbounds[address.platform];
  const typing = outbound ? keepTyping(() => outbound.typing(target)) : undefined;
  let result: TurnResult | undefined;
  try {
    result = await runTurn({
      registry: env.registry,
      contract,
      system: buildSystemPrompt({ persona: env.persona, catalog: contract.catalog }),
      history: before,
      turn,
      step: checkpoint.step - 1,
      loaded: checkpoint.loaded,
      provider: env.provider,
      cacheKey: conversationKey(address),
      maxSteps: env.maxSteps,
      signal,
      runTool: (tool, args, call) =>
        runTool(
          tool,
          args,
          call,
          { ...address, user: last?.user ?? "" },
          { timeoutMs: env.toolTimeoutMs },
        ),
      onToolCall: (name, outcome, ms) => env.observe?.toolCall?.(name, outcome, ms),
      commit: async (step) => {
        if (signal.aborted) throw new LostLeaseError("lease lost");
        const newLoads = step.loaded.filter((id) => !checkpoint.loaded.includes(id));
        const next: Checkpoint = {
          ...checkpoint,
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
  }
  await deliver(env, address, checkpoint, pending, result.answer);
  env.observe?.turn?.({
    address,
    result,
    outcome: result.stop,
    ms: Date.now() - started,
    contractChanged,
  });
}

/**
 * Posts the answer, part by part, recording each part's ref in the
 * checkpoint. A resumed turn skips the parts already recorded, and the
 * idempotency key makes a part posted just before a crash land once.
 */
async function deliver(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
  answer: string,
): Promise<void> {
  const outbound = env.outbounds[address.platform];
  if (!outbound) {
    env.logger.warn("no outbound for this platform; the answer is not delivered", {
      platform: address.platform,
    });
    return;
  }
  const last = pending.at(-1);
  const target: DeliveryTarget = {
    ...address,
    ...(last?.thread ? { thread: last.thread } : {}),
    ...(last?.messageRef ? { replyTo: last.messageRef } : {}),
  };
  const parts = splitMessage(answer.trim() === "" ? "(no answer)" : answer, outbound.maxLength);
  let current = checkpoint;
  for (let i = current.delivered.length; i < parts.length; i++) {
    const ref = await outbound.post(target, parts[i] as string, {
      idempotencyKey: `${current.turnId}-${i}`,
    });
    const next = { ...current, delivered: [...current.delivered, ref] };
    await env.store.turns.writeCheckpoint(address, next, {
      turnId: current.turnId,
      step: current.step,
    });
    current = next;
  }
}

function userMessage(message: InboundMessage): ChatMessage {
  const name = (message.userName ?? message.user).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const attachments = message.attachments.length
    ? `\n[attachments: ${message.attachments.map((a) => a.name).join(", ")}]`
    : "";
  return { role: "user", content: `${message.text}${attachments}`, ...(name ? { name } : {}) };
}

/** Counts how often a checkpointed turn was picked up again (each pickup after a crash). */
async function countResume(
  env: TurnEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
): Promise<number> {
  const key = `${env.store.keys.conversationTag(address)}:resumes:${checkpoint.turnId}`;
  const redis = env.inbox.redis;
  const [[, count]] = (await redis.multi().incr(key).pexpire(key, 86_400_000).exec()) as [
    [unknown, number],
  ];
  return Number(count);
}

/** Remembers the conversation's last contract hash; true when this turn's differs. */
async function noteContractHash(
  env: TurnEnvironment,
  address: ConversationAddress,
  hash: string,
  checkpoint: Checkpoint,
): Promise<boolean> {
  if (checkpoint.contractHash !== "") return false;
  const key = `${env.store.keys.conversationTag(address)}:contract`;
  const previous = await env.inbox.redis.set(key, hash, "GET");
  return previous !== null && previous !== hash;
}

function keepTyping(send: () => Promise<void>): { stop(): void } {
  const tick = () => void send().catch(() => {});
  tick();
  const timer = setInterval(tick, 4_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
