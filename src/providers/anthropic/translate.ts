import type { ChatMessage } from "../../core/agent/messages.ts";
import type { ProviderRequest } from "../../core/agent/provider.ts";
import type { ContentPart } from "../../core/attachments/content.ts";

/**
 * The frozen contract and the stored history, in the Messages API's shape.
 * History is kept in the Chat Completions shape (see messages.ts); this is the
 * one place that reads it for Anthropic, so a conversation that switches
 * provider replays from the same stored messages in either direction.
 *
 * Everything here is a pure function of the request: the same contract and
 * history give the same bytes (rule 2), and the cache breakpoints land on the
 * same blocks, so the prefix Anthropic cached on the last call is read back.
 */

/** How long a cache entry lives after its last read: Anthropic's two choices. */
export type CacheTtl = "5m" | "1h";

export interface CacheControl {
  readonly type: "ephemeral";
  readonly ttl?: CacheTtl;
}

export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: unknown;
  readonly cache_control?: CacheControl;
}

export type AnthropicBlock =
  | { readonly type: "text"; readonly text: string; cache_control?: CacheControl }
  | {
      readonly type: "image";
      readonly source:
        | { readonly type: "base64"; readonly media_type: string; readonly data: string }
        | { readonly type: "url"; readonly url: string };
      cache_control?: CacheControl;
    }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
      cache_control?: CacheControl;
    }
  | {
      readonly type: "tool_result";
      readonly tool_use_id: string;
      readonly content: string;
      cache_control?: CacheControl;
    }
  /** A stored `thinking` or `redacted_thinking` block, sent back as it came (never marked). */
  | ReasoningBlock;

export interface ReasoningBlock {
  readonly type: "thinking" | "redacted_thinking";
  readonly [field: string]: unknown;
  cache_control?: never;
}

export interface AnthropicMessage {
  readonly role: "user" | "assistant";
  readonly content: AnthropicBlock[];
}

export interface MessagesRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: readonly AnthropicBlock[];
  readonly tools?: readonly AnthropicTool[];
  readonly messages: readonly AnthropicMessage[];
  readonly temperature?: number;
  readonly thinking?: { readonly type: "enabled"; readonly budget_tokens: number };
  readonly stream: true;
}

export interface RequestSettings {
  readonly model: string;
  readonly maxTokens: number;
  readonly cacheTtl: CacheTtl;
  readonly temperature?: number | undefined;
  /** Extended thinking's budget in tokens; unset, the model does not think aloud. */
  readonly thinkingBudget?: number | undefined;
}

/** Anthropic takes at most four `cache_control` breakpoints per request. */
export const MAX_BREAKPOINTS = 4;

/** Where the breakpoints of one request sit, for tests and the bench note. */
export interface Breakpoints {
  /** Tool indexes (0-based) carrying one: the last resident tool, then the last appended one. */
  readonly tools: readonly number[];
  readonly system: boolean;
  /** [message index, block index] pairs in the translated messages. */
  readonly messages: readonly (readonly [number, number])[];
}

const TOOL_SEARCH = "tool_search";

/**
 * The Messages API request for one provider step, with its breakpoints:
 *
 * 1. on the last resident tool (the seed's first breakpoint): the tool array
 *    is the root of the prefix, and it changes only at turn boundaries;
 * 2. on the system prompt's block (skills block and deferred catalog included);
 * 3. on the last block of the previous turn, so a turn reads the whole earlier
 *    conversation from cache;
 * 4. on the last tool discovery appended (`tool_search` loads go after
 *    `tool_search` in the array, see freeze.ts), so a load mid-turn costs one
 *    write of the appended tools; with nothing appended it goes on the last
 *    block of the request instead, so the next step of this turn reads it.
 */
export function buildMessagesRequest(
  request: ProviderRequest,
  settings: RequestSettings,
  openAITools: readonly unknown[],
): { body: MessagesRequest; breakpoints: Breakpoints } {
  const mark: CacheControl =
    settings.cacheTtl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  const tools = openAITools.map(toolOf);
  const toolMarks = toolBreakpoints(tools);
  const markedTools = tools.map((tool, i) =>
    toolMarks.includes(i) ? { ...tool, cache_control: mark } : tool,
  );
  const system: AnthropicBlock[] =
    request.system === "" ? [] : [{ type: "text", text: request.system, cache_control: mark }];
  const { messages, ends } = translateHistory(request.messages);
  const used = toolMarks.length + system.length;
  const messageMarks = messageBreakpoints(request.messages, messages, ends, MAX_BREAKPOINTS - used);
  for (const [m, b] of messageMarks) {
    const block = messages[m]?.content[b];
    if (block && !isReasoning(block)) block.cache_control = mark;
  }
  const body: MessagesRequest = {
    model: request.model ?? settings.model,
    max_tokens: settings.maxTokens,
    ...(system.length > 0 ? { system } : {}),
    ...(markedTools.length > 0 ? { tools: markedTools } : {}),
    messages,
    // The API refuses a changed temperature with thinking on.
    ...(settings.temperature === undefined || settings.thinkingBudget !== undefined
      ? {}
      : { temperature: settings.temperature }),
    ...(settings.thinkingBudget === undefined
      ? {}
      : { thinking: { type: "enabled", budget_tokens: settings.thinkingBudget } }),
    stream: true,
  };
  return {
    body,
    breakpoints: { tools: toolMarks, system: system.length > 0, messages: messageMarks },
  };
}

/**
 * One OpenAI function tool as an Anthropic tool. Keys in a fixed order and the
 * schema passed through as parsed from the contract's canonical bytes, so the
 * same contract gives the same bytes.
 */
export function toolOf(raw: unknown): AnthropicTool {
  const fn = (raw as { function?: Record<string, unknown> } | null)?.function ?? {};
  const name = typeof fn.name === "string" ? fn.name : "";
  const parameters = fn.parameters;
  const schema =
    typeof parameters === "object" && parameters !== null && !Array.isArray(parameters)
      ? parameters
      : { type: "object", properties: {} };
  return {
    name,
    ...(typeof fn.description === "string" && fn.description !== ""
      ? { description: fn.description }
      : {}),
    input_schema: schema,
  };
}

/** The last resident tool, and the last appended one when discovery appended any. */
function toolBreakpoints(tools: readonly AnthropicTool[]): number[] {
  if (tools.length === 0) return [];
  const search = tools.findIndex((t) => t.name === TOOL_SEARCH);
  const last = tools.length - 1;
  if (search === -1 || search === last) return [last];
  return [search, last];
}

/**
 * The previous turn's last block (before the last person's message), then
 * the request's last block, within what is left of the four.
 */
function messageBreakpoints(
  source: readonly ChatMessage[],
  messages: readonly AnthropicMessage[],
  ends: readonly (readonly [number, number] | undefined)[],
  room: number,
): [number, number][] {
  const marks: [number, number][] = [];
  const turnStart = source.findLastIndex((m) => m.role === "user");
  const previous =
    turnStart > 0 ? ends.slice(0, turnStart).findLast((e) => e !== undefined) : undefined;
  if (previous && marks.length < room) marks.push([previous[0], previous[1]]);
  const lastMessage = messages.length - 1;
  const lastBlock = (messages[lastMessage]?.content.length ?? 0) - 1;
  if (
    lastMessage >= 0 &&
    lastBlock >= 0 &&
    marks.length < room &&
    !(previous && previous[0] === lastMessage && previous[1] === lastBlock)
  ) {
    marks.push([lastMessage, lastBlock]);
  }
  return marks;
}

/**
 * Chat Completions history as Messages API turns: an assistant's tool calls
 * become `tool_use` blocks, tool results become `tool_result` blocks of a
 * user turn, images become image blocks, and consecutive messages of one
 * role are merged into one turn as the API requires. `ends[i]` is where
 * source message `i`'s last block landed (undefined when it had none).
 *
 * History trimmed at its head may start with an assistant message, or with
 * tool results whose call was trimmed away; the API refuses both, so the
 * first gets a short user turn before it and the second replays as text.
 */
export function translateHistory(source: readonly ChatMessage[]): {
  messages: AnthropicMessage[];
  ends: ([number, number] | undefined)[];
} {
  const messages: AnthropicMessage[] = [];
  const ends: ([number, number] | undefined)[] = [];
  for (const message of source) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(message, callsBefore(messages));
    if (blocks.length === 0) {
      ends.push(undefined);
      continue;
    }
    if (messages.length === 0 && role === "assistant") {
      messages.push({ role: "user", content: [{ type: "text", text: EARLIER_NOT_SHOWN }] });
    }
    const last = messages.at(-1);
    if (last?.role === role) {
      last.content.push(...blocks);
    } else {
      messages.push({ role, content: blocks });
    }
    const at = messages.length - 1;
    // A breakpoint cannot sit on a thinking block: a message of reasoning only has no end to mark.
    const end = (messages[at]?.content ?? []).findLastIndex((b) => !isReasoning(b));
    ends.push(end >= 0 && !blocks.every(isReasoning) ? [at, end] : undefined);
  }
  return { messages, ends };
}

/** What stands before history that starts with the bot's words. */
export const EARLIER_NOT_SHOWN = "(Earlier messages of this conversation are not shown.)";

/** The tool_use ids a tool result may answer: those of the assistant turn just before the open user turn. */
function callsBefore(messages: readonly AnthropicMessage[]): ReadonlySet<string> {
  const last = messages.at(-1);
  const assistant = last?.role === "assistant" ? last : messages.at(-2);
  if (assistant?.role !== "assistant") return new Set();
  return new Set(assistant.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])));
}

function blocksOf(message: ChatMessage, calls: ReadonlySet<string>): AnthropicBlock[] {
  switch (message.role) {
    case "user":
      return typeof message.content === "string"
        ? textBlocks(message.content)
        : message.content.flatMap(partBlocks);
    case "tool":
      return calls.has(message.tool_call_id)
        ? [{ type: "tool_result", tool_use_id: message.tool_call_id, content: message.content }]
        : textBlocks(
            `[result of an earlier tool call ${message.tool_call_id}]\n${message.content}`,
          );
    case "assistant":
      // Thinking goes first, as the API returned it and requires it back.
      return [
        ...(message.reasoning ?? []).filter(isReasoning),
        ...textBlocks(message.content ?? ""),
        ...(message.tool_calls ?? []).map(
          (call): AnthropicBlock => ({
            type: "tool_use",
            id: call.id,
            name: call.function.name,
            input: inputOf(call.function.arguments),
          }),
        ),
      ];
  }
}

/** Reasoning blocks this provider wrote; anything else a stored message carries is not sent. */
function isReasoning(block: { readonly type: string }): block is ReasoningBlock {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

/** The API refuses empty text blocks; an empty text says nothing anyway. */
function textBlocks(text: string): AnthropicBlock[] {
  return text === "" ? [] : [{ type: "text", text }];
}

function partBlocks(part: ContentPart): AnthropicBlock[] {
  if (part.type === "text") return textBlocks(part.text);
  const url = part.image_url.url;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data?.[1] && data[2] !== undefined) {
    return [{ type: "image", source: { type: "base64", media_type: data[1], data: data[2] } }];
  }
  return [{ type: "image", source: { type: "url", url } }];
}

/**
 * A tool call's arguments as `tool_use.input`, which must be an object.
 * Arguments that were not an object (malformed JSON the loop already answered
 * with a tombstone) replay as `{}`: the pair stays whole, and the result
 * says what was wrong.
 */
function inputOf(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
