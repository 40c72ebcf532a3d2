import { randomUUID } from "node:crypto";
import { freezeState } from "../conversation/contract.ts";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/agent/inbound.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import type { HistoryReading } from "../store/index.ts";
import { encodeMessage } from "../store/message-json.ts";
import type { Snapshot } from "./snapshot.ts";
import { LostLeaseError, type TurnEnvironment } from "./turn-environment.ts";

/**
 * Starts a turn: the person's messages join history and the checkpoint is
 * written, in one script. The contract's hash is remembered per conversation
 * at the same time, for the "contract changed" metric.
 */
export async function beginTurn(
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

/** A person's message as the model reads it: the text, the attachments named, the sender's name. */
export function userMessage(message: InboundMessage): ChatMessage {
  const name = (message.userName ?? message.user).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const attachments = message.attachments.length
    ? `\n[attachments: ${message.attachments.map((a) => a.name).join(", ")}]`
    : "";
  return { role: "user", content: `${message.text}${attachments}`, ...(name ? { name } : {}) };
}
