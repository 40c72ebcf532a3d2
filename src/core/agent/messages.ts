import type { ContentPart } from "../attachments/content.ts";

/**
 * History is kept in the Chat Completions message shape, which every
 * OpenAI-compatible server takes as it is: stored messages replay byte for
 * byte, and a tool call is always followed by its result (rule 6).
 */
export interface ToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

export type ChatMessage =
  | {
      readonly role: "user";
      /** Text, or text and `image_url` parts when a person sent an image to a vision model. */
      readonly content: string | readonly ContentPart[];
      readonly name?: string;
    }
  | AssistantMessage
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
  /**
   * The model's reasoning blocks as its provider returned them (Anthropic's
   * `thinking` and `redacted_thinking`, signature included). Opaque to
   * everything but the provider that wrote them: Anthropic refuses a tool loop
   * whose assistant turn comes back without them, or with them changed, so
   * they are stored and replayed untouched. Other providers leave them out.
   */
  readonly reasoning?: readonly ProviderBlock[];
}

/** A provider's own content block, kept as JSON and never read outside that provider. */
export interface ProviderBlock {
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens the provider served from its cache (`prompt_tokens_details.cached_tokens`). */
  readonly cachedTokens: number;
  /**
   * Prompt tokens written to the cache on this request, priced above plain
   * input (Anthropic's `cache_creation_input_tokens`); absent where the
   * provider caches without charging for it.
   */
  readonly cacheWriteTokens?: number;
}

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  const written = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
  };
}
