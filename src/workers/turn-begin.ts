import { randomUUID } from "node:crypto";
import { conversationCapabilities, freezeState } from "../conversation/contract.ts";
import type { AttachmentRecord, Checkpoint } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/agent/inbound.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import { type AttachmentContent, namedOnly, userContent } from "../core/attachments/content.ts";
import { declaredKind } from "../core/attachments/kind.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import type { HistoryReading } from "../store/index.ts";
import { encodeMessage } from "../store/message-json.ts";
import type { Snapshot } from "./snapshot.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

/**
 * Starts a turn: the person's messages join history and the checkpoint is
 * written, in one script. The contract's hash is remembered per conversation
 * at the same time, for the "contract changed" metric. The write is issued,
 * not waited for: the turn's next writes queue behind it on the connection
 * and are guarded by it, and `TurnSteps.durable` checks it before anything
 * leaves the conversation (see {@link TurnBegun}).
 */
export async function beginTurn(
  env: TurnEnvironment,
  address: ConversationAddress,
  snap: Snapshot,
  history: HistoryReading,
  signal: AbortSignal = new AbortController().signal,
): Promise<TurnBegun> {
  // The files are read for the model this turn runs on, as its contract is frozen for it.
  const capabilities = conversationCapabilities(env, address, snap.state);
  const read = await readAttachments(env, address, snap.pending, signal, capabilities);
  const input = snap.pending.map((message, i) => userMessage(message, read[i]));
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
    ...(read.some((r) => r.length > 0) ? { attachments: read.flat().map(attachmentRecord) } : {}),
  };
  const write = env.store.turns.beginTurn(address, input, checkpoint);
  const begun = write.then(({ began }) => began);
  begun.catch(() => {}); // checked by TurnSteps; never unhandled if the turn stops before it
  const contractChanged = write.then(
    ({ previousContractHash }) =>
      previousContractHash !== null && previousContractHash !== contract.hash,
    () => false,
  );
  return {
    checkpoint,
    history: {
      raw: [...history.raw, ...input.map(encodeMessage)],
      trimmed: history.trimmed,
      messages: [...history.messages, ...input],
    },
    contract,
    begun,
    contractChanged,
  };
}

/** A turn begun in this run: its first checkpoint, and its begin write in flight. */
export interface TurnBegun {
  readonly checkpoint: Checkpoint;
  readonly history: HistoryReading;
  readonly contract: TurnContract;
  /** Whether the begin was stored (false: another turn's checkpoint is there); see TurnSteps. */
  readonly begun: Promise<boolean>;
  /** Whether this turn's tools differ from the conversation's last turn's. */
  readonly contractChanged: Promise<boolean>;
}

/**
 * The files of each message, read by the worker at the turn (never in
 * ingress, which acks fast), with the turn's capabilities (`vision` is the
 * turn's model's). Without a reader they are named only.
 */
export async function readAttachments(
  env: TurnEnvironment,
  address: ConversationAddress,
  messages: readonly InboundMessage[],
  signal: AbortSignal,
  capabilities: Capabilities,
): Promise<AttachmentContent[][]> {
  const all = messages.flatMap((message) => message.attachments);
  if (all.length === 0) return messages.map(() => []);
  // One read for the whole turn: the per-turn total covers every message's files.
  const read = env.attachments
    ? await env.attachments.read(address, all, signal, capabilities)
    : all.map((a) => namedOnly(a, declaredKind(a), "named", "this bot does not fetch files"));
  let next = 0;
  return messages.map((message) => {
    const mine = read.slice(next, next + message.attachments.length);
    next += message.attachments.length;
    return [...mine];
  });
}

/** What the checkpoint keeps of a file: no bytes, no text, just what became of it. */
export function attachmentRecord(content: AttachmentContent): AttachmentRecord {
  return {
    ref: content.ref,
    name: content.name,
    outcome: content.outcome,
    ...(content.type ? { type: content.type } : {}),
    bytes: content.bytes,
  };
}

/** A person's message as the model reads it: the text, what their files came to, the sender's name. */
export function userMessage(
  message: InboundMessage,
  attachments: readonly AttachmentContent[] = [],
): ChatMessage {
  const name = (message.userName ?? message.user).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const content = userContent(message.text, attachments);
  return { role: "user", content, ...(name ? { name } : {}) };
}
