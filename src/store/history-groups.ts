import type { ChatMessage } from "../core/agent/messages.ts";
import { messageTokens } from "../core/budget/image-tokens.ts";
import { boundedMemo } from "./bounded-memo.ts";
import { DECODED_CHARS, decodeMessage } from "./message-json.ts";

/**
 * A run of messages that must stay together or go together: a user message,
 * a plain assistant message, or an assistant message with tool calls plus the
 * tool results that answer them. Dropping half of the last kind leaves a tool
 * call without its result, which providers refuse (rule 6).
 */
export interface MessageGroup {
  /** Index of the first message. */
  readonly start: number;
  /** Index after the last message. */
  readonly end: number;
  /** Tool calls at the very end of history still waiting for some results. */
  readonly open: boolean;
}

/** Cuts history into groups, oldest first. Unreadable entries and stray tool results stand alone. */
export function groupMessages(messages: readonly (ChatMessage | undefined)[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i];
    let end = i + 1;
    let open = false;
    if (message?.role === "assistant" && message.tool_calls && message.tool_calls.length > 0) {
      const pending = new Set(message.tool_calls.map((call) => call.id));
      for (let next = messages[end]; next?.role === "tool"; next = messages[end]) {
        if (!pending.delete(next.tool_call_id)) break;
        end++;
      }
      // Only the last group can still be answered; an earlier one is already broken.
      open = pending.size > 0 && end === messages.length;
    }
    groups.push({ start: i, end, open });
    i = end;
  }
  return groups;
}

export interface CompactionLimits {
  /** History above this many estimated tokens is compacted. */
  readonly maxTokens: number;
  /** The newest groups that are never dropped, even when history stays above maxTokens. */
  readonly keepLast: number;
}

export interface CompactionPlan {
  /** How many messages to drop from the head. */
  readonly drop: number;
  readonly droppedGroups: number;
  /** Estimated tokens of what stays. */
  readonly tokens: number;
}

/** A stored entry's estimated tokens, remembered like its decoding (see decodeMessage). */
export const entryTokens = boundedMemo(DECODED_CHARS, (entry: string) => messageTokens(entry));

/** What a caller already knows of each entry of `raw`, position for position. */
export interface KnownEntries {
  readonly messages: readonly (ChatMessage | undefined)[];
  readonly costs: readonly number[];
}

/**
 * Which head of history to drop: the oldest whole groups, until the rest fits
 * in `maxTokens`, never one of the last `keepLast` groups nor tool calls still
 * waiting for results. Tokens are estimated on the stored JSON of each message,
 * an image part by the provider's formula rather than its base64 bytes.
 */
export function planCompaction(
  raw: readonly string[],
  limits: CompactionLimits,
  known?: KnownEntries,
): CompactionPlan {
  const messages = known?.messages ?? raw.map(decodeMessage);
  const costs = known?.costs ?? raw.map(entryTokens);
  let tokens = costs.reduce((sum, cost) => sum + cost, 0);
  if (tokens <= limits.maxTokens) return { drop: 0, droppedGroups: 0, tokens };
  const groups = groupMessages(messages);
  let droppable = Math.max(0, groups.length - limits.keepLast);
  if (groups.at(-1)?.open) droppable = Math.min(droppable, groups.length - 1);
  let dropped = 0;
  while (tokens > limits.maxTokens && dropped < droppable) {
    const group = groups[dropped] as MessageGroup;
    for (let i = group.start; i < group.end; i++) tokens -= costs[i] as number;
    dropped++;
  }
  const drop = dropped === 0 ? 0 : (groups[dropped - 1] as MessageGroup).end;
  return { drop, droppedGroups: dropped, tokens };
}
