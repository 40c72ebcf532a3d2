import { randomUUID } from "node:crypto";
import type { ToolCall, Usage } from "../../core/agent/messages.ts";
import { ZERO_USAGE } from "../../core/agent/messages.ts";
import { ProviderError, type ProviderResponse } from "../../core/agent/provider.ts";
import type { LoggerPort } from "../../core/logger.ts";
import { noteStreamEvent } from "../../observability/tracing-model.ts";
import { type ReplyLimits, StreamEndedEarlyError, type StreamProgress } from "../openai-stream.ts";
import { nestingProblem, oversizedArguments } from "../tool-call-limits.ts";

type Fields = Readonly<Record<string, unknown>>;

interface ToolUseDraft {
  id: string;
  name: string;
  json: string;
  /** Every argument character the model sent, including those past the cap. */
  chars: number;
}

interface StreamReading {
  readonly onText?: ((textSoFar: string) => void) | undefined;
  readonly progress: StreamProgress;
  readonly logger: LoggerPort;
  readonly limits: ReplyLimits;
}

/** Anthropic's stop reasons in the Chat Completions words the loop reads. */
const FINISH: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
};

/**
 * Reads a Messages API stream (`message_start`, `content_block_start`,
 * `content_block_delta` with `text_delta` or `input_json_delta`,
 * `content_block_stop`, `message_delta`, `message_stop`) into one response.
 * Text is handed to `onText` as it grows, the same live-edit path the
 * OpenAI-compatible provider feeds; `tool_use` blocks become tool calls with
 * their input JSON joined from its pieces. The caps are those of the other
 * provider: a long answer is cut, oversized or too deeply nested arguments are
 * withheld, too many calls end the turn with an answer saying so.
 *
 * Usage: Anthropic's `input_tokens` leaves out what was read from and written
 * to the cache, so the prompt is the sum of the three and the cached share is
 * `cache_read_input_tokens`.
 */
export async function readMessageStream(
  events: AsyncIterable<unknown>,
  options: StreamReading,
): Promise<ProviderResponse> {
  const reply = new MessageDraft(options);
  for await (const event of events) {
    if (!reply.read(event)) break;
  }
  return reply.response();
}

class MessageDraft {
  #text = "";
  #cut = false;
  #tooManyCalls = false;
  #stopReason: string | undefined;
  #input = { fresh: 0, written: 0, read: 0 };
  #output = 0;
  readonly #calls = new Map<number, ToolUseDraft>();

  constructor(private readonly options: StreamReading) {}

  read(value: unknown): boolean {
    const { progress } = this.options;
    progress.events++;
    if (progress.events === 1) noteStreamEvent();
    const event = fieldsOf(value);
    switch (event?.type) {
      case "message_start":
        this.#readUsage(fieldsOf(fieldsOf(event.message)?.usage));
        return true;
      case "content_block_start":
        return this.#open(event);
      case "content_block_delta":
        return this.#delta(event);
      case "message_delta": {
        const stop = fieldsOf(event.delta)?.stop_reason;
        if (typeof stop === "string") this.#stopReason = stop;
        this.#readUsage(fieldsOf(event.usage));
        return true;
      }
      case "content_block_stop":
      case "message_stop":
      case "ping":
        return true;
      default:
        progress.unreadable++;
        return true;
    }
  }

  #readUsage(usage: Fields | undefined): void {
    if (!usage) return;
    const count = (n: unknown) =>
      typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;
    // message_delta's counts are cumulative: a later one replaces an earlier one.
    this.#input = {
      fresh: count(usage.input_tokens) ?? this.#input.fresh,
      written: count(usage.cache_creation_input_tokens) ?? this.#input.written,
      read: count(usage.cache_read_input_tokens) ?? this.#input.read,
    };
    this.#output = count(usage.output_tokens) ?? this.#output;
  }

  #open(event: Fields): boolean {
    const block = fieldsOf(event.content_block);
    const index = typeof event.index === "number" ? event.index : -1;
    if (block?.type === "text" && typeof block.text === "string" && block.text !== "") {
      return this.#addText(block.text);
    }
    if (block?.type !== "tool_use") return true;
    if (this.#calls.size >= this.options.limits.maxToolCalls) {
      this.#tooManyCalls = true;
      return false;
    }
    this.#calls.set(index, {
      id: typeof block.id === "string" ? block.id : "",
      name: typeof block.name === "string" ? block.name : "",
      json: "",
      chars: 0,
    });
    return true;
  }

  #delta(event: Fields): boolean {
    const delta = fieldsOf(event.delta);
    if (delta?.type === "text_delta" && typeof delta.text === "string") {
      return delta.text === "" || this.#addText(delta.text);
    }
    if (delta?.type === "input_json_delta" && typeof delta.partial_json === "string") {
      const draft = this.#calls.get(typeof event.index === "number" ? event.index : -1);
      if (!draft) return true;
      draft.chars += delta.partial_json.length;
      if (draft.chars <= this.options.limits.maxToolCallChars) draft.json += delta.partial_json;
    }
    // thinking_delta, signature_delta, citations: nothing the person or the loop reads.
    return true;
  }

  #addText(content: string): boolean {
    const { progress, onText, logger, limits } = this.options;
    const room = limits.maxAnswerChars - this.#text.length;
    this.#text += content.slice(0, room);
    progress.text = this.#text;
    if (onText) {
      progress.textShown = true;
      try {
        onText(this.#text);
      } catch (error) {
        logger.warn("Showing the reply as it streams failed; the full reply still follows.", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (content.length > room) {
      this.#cut = true;
      return false;
    }
    return true;
  }

  #usage(): Usage {
    const { fresh, written, read } = this.#input;
    if (fresh + written + read + this.#output === 0) return ZERO_USAGE;
    return {
      promptTokens: fresh + written + read,
      cachedTokens: read,
      completionTokens: this.#output,
      ...(written > 0 ? { cacheWriteTokens: written } : {}),
    };
  }

  response(): ProviderResponse {
    const { limits } = this.options;
    if (this.#tooManyCalls) {
      throw new ProviderError(
        "bad_response",
        `The model asked for more than ${limits.maxToolCalls} tool calls in one reply, so I ran none of them. Please try again, or ask for fewer things at once. (The limit is SWITCHYARD_MODEL_MAX_TOOL_CALLS.)`,
      );
    }
    if (this.#cut) {
      return {
        content: `${this.#text}\n\n(This answer was cut here: it passed ${limits.maxAnswerChars} characters, the most one answer may have. Ask for the rest, or for a shorter answer.)`,
        toolCalls: [],
        finishReason: "length",
        usage: this.#usage(),
      };
    }
    if (this.#stopReason === undefined) {
      throw new StreamEndedEarlyError("The stream ended before the model finished its reply.");
    }
    return {
      content: this.#text === "" ? null : this.#text,
      toolCalls: [...this.#calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, draft]) => toolCallOf(draft, limits)),
      finishReason: FINISH[this.#stopReason] ?? "stop",
      usage: this.#usage(),
    };
  }
}

function toolCallOf(draft: ToolUseDraft, limits: ReplyLimits): ToolCall {
  const args =
    draft.chars > limits.maxToolCallChars
      ? oversizedArguments(draft.chars, limits.maxToolCallChars)
      : (nestingProblem(draft.json) ?? draft.json);
  return {
    // A call without an id could not be paired with its result (rule 6).
    id: draft.id || `toolu_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "function",
    // A tool_use with an empty input streams no JSON pieces.
    function: { name: draft.name, arguments: args || "{}" },
  };
}

function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
}
