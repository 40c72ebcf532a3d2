import type OpenAI from "openai";
import type { ChatMessage } from "../core/agent/messages.ts";
import type { ProviderRequest } from "../core/agent/provider.ts";
import type { LoggerPort } from "../core/logger.ts";

export interface RequestSettings {
  readonly model: string;
  readonly temperature?: number | undefined;
}

/**
 * The Chat Completions request for one provider step. The system prompt goes
 * first and the tools array is sent as the contract's bytes, so the prefix the
 * provider caches is the same on every step and every turn.
 */
export function buildChatRequest(
  request: ProviderRequest,
  settings: RequestSettings,
  tools: readonly OpenAI.ChatCompletionTool[],
): OpenAI.ChatCompletionCreateParamsStreaming {
  return {
    model: request.model ?? settings.model,
    messages: [
      { role: "system", content: request.system },
      // Stored history is already in the wire shape; passing the objects through keeps their bytes.
      ...(request.messages.map(withoutReasoning) as OpenAI.ChatCompletionMessageParam[]),
    ],
    ...(tools.length > 0
      ? { tools: tools as OpenAI.ChatCompletionTool[], parallel_tool_calls: true }
      : {}),
    prompt_cache_key: request.cacheKey,
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    stream: true,
    stream_options: { include_usage: true },
  };
}

/**
 * Turns the contract's tools bytes into the array the SDK serializes. Parsing
 * keeps key order, so `JSON.stringify` gives the same bytes back, with one
 * exception JavaScript imposes: integer-like keys (`"2"`, `"10"`) move to the
 * front in numeric order. That would change the bytes on the wire and cost the
 * prompt cache, so it is checked (once per distinct tools string) and warned.
 *
 * The last parse is kept: the tools bytes repeat on every step of a turn.
 */
export function toolsParser(
  logger: LoggerPort,
): (tools: string) => readonly OpenAI.ChatCompletionTool[] {
  let lastText: string | undefined;
  let lastTools: readonly OpenAI.ChatCompletionTool[] = [];
  return (text) => {
    if (text === lastText) return lastTools;
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) {
      throw new TypeError(
        `ProviderRequest.tools must be the contract's tools as a JSON array ("[]" for none), got ${text.slice(0, 40)}`,
      );
    }
    if (JSON.stringify(parsed) !== text) {
      logger.warn(
        "The tools array does not serialize back to the contract's bytes (a schema has integer-like property names), so the provider's prompt cache may miss.",
        { tools: parsed.length },
      );
    }
    lastText = text;
    lastTools = parsed as OpenAI.ChatCompletionTool[];
    return lastTools;
  };
}

/**
 * Another provider's reasoning blocks (Anthropic's signed `thinking`) mean
 * nothing here and are no Chat Completions field: a conversation switched to
 * this provider sends the message without them. Messages without any pass
 * through as the same object.
 */
function withoutReasoning(message: ChatMessage): ChatMessage {
  if (message.role !== "assistant" || message.reasoning === undefined) return message;
  const { reasoning: _reasoning, ...rest } = message;
  return rest;
}
