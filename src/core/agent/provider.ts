import type { ChatMessage, ToolCall, Usage } from "./messages.ts";

/**
 * The one thing the agent loop knows about a model. The request is built from
 * the turn's contract, so the tools bytes and the system prompt are the same
 * on every step and every turn until something people changed takes effect.
 */
export interface ProviderRequest {
  /** The system prompt: deterministic, no timestamps or ids. */
  readonly system: string;
  /** The contract's tools array as canonical JSON; `"[]"` for none. */
  readonly tools: string;
  /** History and this turn's messages, oldest first, without the system prompt. */
  readonly messages: readonly ChatMessage[];
  /** Routes requests of one conversation to the same prompt cache (`prompt_cache_key`). */
  readonly cacheKey: string;
  readonly signal?: AbortSignal;
  /** Text as it streams in, for live edits; the final text is in the response. */
  readonly onText?: (textSoFar: string) => void;
}

export interface ProviderResponse {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  /** `stop`, `tool_calls`, `length`, `content_filter`. */
  readonly finishReason: string;
  readonly usage: Usage;
}

export interface Provider {
  complete(request: ProviderRequest): Promise<ProviderResponse>;
}

/**
 * A provider failure the loop reports to the person in plain words. `retryable`
 * failures were already retried by the provider before it gave up.
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    readonly kind:
      | "unconfigured"
      | "auth"
      | "rate_limit"
      | "server"
      | "bad_request"
      | "network"
      | "aborted",
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
