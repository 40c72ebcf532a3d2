import type { AttachmentRecord } from "../core/agent/checkpoint.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import { type AttachmentContent, namedOnly, userContent } from "../core/attachments/content.ts";
import { declaredKind } from "../core/attachments/kind.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import { type ConversationAddress, type InboundMessage, modelText } from "../core/conversation.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

/**
 * People's messages as the model reads them, for a turn that takes them
 * (it begins with them, or they join it): each one's text, what its files
 * came to and the sender's name, and what the checkpoint keeps of the files.
 */
export async function readUserMessages(
  env: TurnEnvironment,
  address: ConversationAddress,
  messages: readonly InboundMessage[],
  capabilities: Capabilities,
  signal: AbortSignal,
): Promise<{ readonly messages: ChatMessage[]; readonly records: AttachmentRecord[] }> {
  const read = await readAttachments(env, address, messages, capabilities, signal);
  return {
    messages: messages.map((message, i) => userMessage(message, read[i])),
    records: read.flat().map(attachmentRecord),
  };
}

/**
 * The files of each message, read by the worker at the turn (never in
 * ingress, which acks fast), with the turn's capabilities (`vision` is the
 * turn's model's). Without a reader they are named only.
 */
async function readAttachments(
  env: TurnEnvironment,
  address: ConversationAddress,
  messages: readonly InboundMessage[],
  capabilities: Capabilities,
  signal: AbortSignal,
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
function attachmentRecord(content: AttachmentContent): AttachmentRecord {
  return {
    ref: content.ref,
    name: content.name,
    outcome: content.outcome,
    ...(content.type ? { type: content.type } : {}),
    bytes: content.bytes,
  };
}

/** A person's message as the model reads it: the text, what their files came to, the sender's name. */
function userMessage(
  message: InboundMessage,
  attachments: readonly AttachmentContent[] = [],
): ChatMessage {
  const name = (message.userName ?? message.user).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const content = userContent(modelText(message), attachments);
  return { role: "user", content, ...(name ? { name } : {}) };
}
