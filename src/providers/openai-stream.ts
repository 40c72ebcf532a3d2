import { randomUUID } from "node:crypto";
import type OpenAI from "openai";
import type { ToolCall, Usage } from "../core/agent/messages.ts";
import { ZERO_USAGE } from "../core/agent/messages.ts";
import type { ProviderResponse } from "../core/agent/provider.ts";
import type { LoggerPort } from "../core/availability/warnings.ts";
import { abortedError, StreamEndedEarlyError } from "./openai-errors.ts";

/** Whether a person may already have seen part of this attempt's reply. */
export interface StreamProgress {
  textShown: boolean;
}

interface ToolCallDraft {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reads a Chat Completions stream into one response: text deltas joined (and
 * handed to `onText` as they grow), tool calls assembled by their `index` from
 * an opening delta (id, name) and argument pieces, the finish reason, and the
 * usage chunk that `stream_options.include_usage` adds at the end.
 */
export async function readCompletionStream(
  chunks: AsyncIterable<OpenAI.ChatCompletionChunk>,
  options: {
    readonly onText?: ((textSoFar: string) => void) | undefined;
    readonly signal?: AbortSignal | undefined;
    readonly progress: StreamProgress;
    readonly logger: LoggerPort;
  },
): Promise<ProviderResponse> {
  const { onText, signal, progress, logger } = options;
  let text = "";
  let refusal = "";
  let finishReason: string | undefined;
  let usage: Usage = ZERO_USAGE;
  const drafts = new Map<number, ToolCallDraft>();

  for await (const chunk of chunks) {
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) continue;
    const { delta } = choice;
    if (delta.content) {
      text += delta.content;
      if (onText) {
        progress.textShown = true;
        showText(onText, text, logger);
      }
    }
    if (delta.refusal) refusal += delta.refusal;
    for (const piece of delta.tool_calls ?? []) {
      const draft = drafts.get(piece.index) ?? { id: "", name: "", arguments: "" };
      drafts.set(piece.index, draft);
      // Some servers repeat the id and name on every piece: first one wins.
      if (piece.id && !draft.id) draft.id = piece.id;
      if (piece.function?.name && !draft.name) draft.name = piece.function.name;
      if (piece.function?.arguments) draft.arguments += piece.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }

  // The SDK ends the iteration quietly when the signal aborts mid-stream.
  if (signal?.aborted) throw abortedError();
  if (finishReason === undefined) {
    throw new StreamEndedEarlyError("The stream ended before the model finished its reply.");
  }
  const content = text || refusal;
  return {
    content: content === "" ? null : content,
    toolCalls: [...drafts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, draft]) => toolCallOf(draft)),
    finishReason,
    usage,
  };
}

function toolCallOf(draft: ToolCallDraft): ToolCall {
  return {
    // A tool call without an id could not be paired with its result (rule 6).
    id: draft.id || `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "function",
    // A call without arguments streams none; "{}" is what it means and what servers accept back.
    function: { name: draft.name, arguments: draft.arguments || "{}" },
  };
}

function usageOf(usage: OpenAI.CompletionUsage): Usage {
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

/** Live text is a courtesy: a failed edit is logged and the reply goes on. */
function showText(onText: (textSoFar: string) => void, text: string, logger: LoggerPort): void {
  try {
    onText(text);
  } catch (error) {
    logger.warn("Showing the reply as it streams failed; the full reply still follows.", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
