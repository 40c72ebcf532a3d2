import { z } from "zod";
import type { ChatMessage } from "../core/agent/messages.ts";
import { canonicalJson } from "../core/tools/canonical-json.ts";
import { boundedMemo } from "./bounded-memo.ts";

/**
 * A message as stored: canonical JSON (sorted keys), written once and never
 * rewritten, so it replays byte for byte however it was built.
 */
export function encodeMessage(message: ChatMessage): string {
  return canonicalJson(message);
}

const toolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

// Only what replay and compaction rely on is checked; extra fields pass through.
const chatMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("user"), content: z.unknown() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.unknown(),
    tool_calls: z.array(toolCall).optional(),
    // Opaque provider blocks (signed thinking); older entries have none.
    reasoning: z.array(z.looseObject({ type: z.string() })).optional(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string(), content: z.unknown() }),
]);

/**
 * How much stored JSON is remembered decoded, in characters: a turn reads
 * its conversation's whole history, and each entry is written once and never
 * changed, so turn after turn the same strings come back. 24 Mi characters
 * (with the decoded objects, under about 100 MB) covers the recent
 * conversations of a busy worker; past it the least recent are decoded again.
 */
export const DECODED_CHARS = 24 * 1024 * 1024;

/**
 * The stored message, exactly as parsed; undefined when the entry is not a
 * chat message. The same entry gives the same (shared, never mutated) object.
 */
export const decodeMessage: (raw: string) => ChatMessage | undefined = boundedMemo(
  DECODED_CHARS,
  parseMessage,
);

function parseMessage(raw: string): ChatMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return chatMessage.safeParse(value).success ? (value as ChatMessage) : undefined;
}
