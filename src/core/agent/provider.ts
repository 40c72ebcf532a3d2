import type { ChatMessage, ProviderBlock, ToolCall, Usage } from "./messages.ts";

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
  /** The model to ask (`/model`, the config's choices); unset: the provider's own. */
  readonly model?: string;
  /**
   * The models a failed step moves to, in order (the answering agent's
   * `fallback:`); unset: the model's own `models:` entry decides.
   */
  readonly fallback?: readonly string[];
  /**
   * At most this many retries of a failed attempt, under the provider's own
   * limit; unset: the provider's own. A model with a next one in its
   * fallback chain is retried less, so a failing step moves on sooner.
   */
  readonly maxRetries?: number;
  /**
   * Text of this turn's answer already reached the person, in an earlier
   * step (or a crashed run of the turn): a failure now stands, and the
   * person gets its note, never a second model's answer in its place.
   */
  readonly answerShown?: boolean;
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
  /** Reasoning blocks to store with the step and send back unchanged (see AssistantMessage). */
  readonly reasoning?: readonly ProviderBlock[];
}

/**
 * The model, behind one method: the agent loop never knows which it talks
 * to. `openAIProvider` is one for any OpenAI-compatible server; write your
 * own for anything else.
 *
 * @example
 * const echo: Provider = {
 *   async complete(request) {
 *     const last = request.messages.at(-1);
 *     return {
 *       content: `You said: ${typeof last?.content === "string" ? last.content : ""}`,
 *       toolCalls: [],
 *       finishReason: "stop",
 *       usage: { promptTokens: 0, cachedTokens: 0, completionTokens: 0 },
 *     };
 *   },
 * };
 */
export interface Provider {
  complete(request: ProviderRequest): Promise<ProviderResponse>;
}

/**
 * Why a model call failed:
 *
 * - `timeout`: the reply did not start, went quiet mid-stream, or the call ran
 *   past its budget. Never retried: the person has waited long enough.
 * - `bad_response`: the server answered with something that is not a usable
 *   reply (garbage events, an empty body, a web page, a stream that stopped
 *   before it was finished, more tool calls than allowed).
 * - `aborted`: the turn's signal (a lost lease, `/stop`) cancelled it.
 */
export type ProviderErrorKind =
  | "unconfigured"
  | "auth"
  | "rate_limit"
  | "server"
  | "bad_request"
  | "network"
  | "timeout"
  | "bad_response"
  | "aborted";

/**
 * A provider failure the loop reports to the person in plain words: the
 * message is the turn's answer, so it says what happened and what to do.
 * Failures worth retrying were already retried by the provider before it gave
 * up; the turn itself is never retried for one.
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
