import type * as AnthropicSDK from "@anthropic-ai/sdk";
import type { ProviderBlock, Usage } from "../../core/agent/messages.ts";
import { ZERO_USAGE } from "../../core/agent/messages.ts";
import type { ProviderResponse } from "../../core/agent/provider.ts";
import {
  type EventSourceMessage,
  type EventStreamWatch,
  readEventStream,
} from "../event-stream.ts";
import { socketBody } from "../model-fetch.ts";
import { CappedReplyDraft } from "../reply-draft.ts";
import { type Fields, fieldsOf, type StreamReading } from "../reply-stream.ts";

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

export interface MessageReading extends StreamReading {
  readonly watch: EventStreamWatch;
  /** The SDK whose `APIError` an `error` event throws, as its own stream reader throws it. */
  readonly sdk: Pick<typeof AnthropicSDK, "APIError">;
  /** The request, as the SDK's error names it (`path: /v1/messages`). */
  readonly request: { readonly method: string; readonly url: string };
  /** Where an event that is not JSON is logged: the SDK's logger, as its stream reader did. */
  readonly sdkLog: (message: string) => void;
}

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
 * `thinking` blocks (joined from `thinking_delta` and `signature_delta`) and
 * `redacted_thinking` blocks come back as the response's `reasoning`, in
 * stream order and otherwise untouched: the API refuses the next step of a
 * tool loop unless they are sent back exactly as they came.
 *
 * Usage: Anthropic's `input_tokens` leaves out what was read from and written
 * to the cache, so the prompt is the sum of the three and the cached share is
 * `cache_read_input_tokens`.
 *
 * The body is read here (event-stream.ts, off the socket when model-fetch.ts
 * made the request), not by the SDK's `Stream`, and read as that did: a
 * `ping` and an event with no name are skipped, as is one with no data; an
 * `error` event throws the SDK's `APIError` without a status (its `type`
 * from the body, `overloaded_error` the usual one); an event that is not
 * JSON throws its `SyntaxError`. Reading ends quietly when the signal
 * aborts, so the caller checks it afterwards.
 */
export async function readMessageStream(
  response: Response,
  options: MessageReading,
): Promise<ProviderResponse> {
  const draft = new MessageDraft(options);
  const { APIError } = options.sdk;
  await readEventStream(
    socketBody(response) ?? response.body,
    options.watch,
    ({ event, data }: EventSourceMessage) => {
      if (event === undefined || event === "ping") return true;
      if (event === "error") {
        const body = parsedOr(data);
        const type = fieldsOf(fieldsOf(body)?.error)?.type;
        throw new APIError(
          undefined,
          body as object,
          undefined,
          response.headers,
          (typeof type === "string" ? type : undefined) as AnthropicSDK.APIError["type"],
          { request: options.request },
        );
      }
      if (!data) return true;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch (error) {
        options.sdkLog("Could not parse message into JSON:");
        throw error;
      }
      return draft.read(parsed);
    },
  );
  return draft.response();
}

/** The event's data as JSON when it is, else as it came (the SDK's `safeJSON(data) ?? data`). */
function parsedOr(data: string): unknown {
  try {
    return JSON.parse(data) ?? data;
  } catch {
    return data;
  }
}

/**
 * The reply as the stream builds it, event by event, within the limits.
 * Exported for the test and the benchmark, which feed it the SDK's `Stream`
 * to compare.
 */
export class MessageDraft extends CappedReplyDraft {
  #stopReason: string | undefined;
  #input = { fresh: 0, written: 0, read: 0 };
  #output = 0;
  /** Reasoning blocks by stream index, as they were opened and then grown by their deltas. */
  readonly #reasoning = new Map<number, { [field: string]: unknown; type: string }>();

  constructor(options: StreamReading) {
    super(options, "toolu_");
  }

  protected override readEvent(value: unknown): boolean {
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
        this.options.progress.unreadable++;
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
      return this.addText(block.text);
    }
    if (block?.type === "thinking" || block?.type === "redacted_thinking") {
      this.#reasoning.set(index, { ...block, type: block.type });
      return true;
    }
    if (block?.type !== "tool_use") return true;
    const id = typeof block.id === "string" ? block.id : "";
    const name = typeof block.name === "string" ? block.name : "";
    return this.openCall(index, id, name) !== undefined;
  }

  #delta(event: Fields): boolean {
    const delta = fieldsOf(event.delta);
    if (delta?.type === "text_delta" && typeof delta.text === "string") {
      return delta.text === "" || this.addText(delta.text);
    }
    if (delta?.type === "input_json_delta" && typeof delta.partial_json === "string") {
      const draft = this.calls.get(typeof event.index === "number" ? event.index : -1);
      if (!draft) return true;
      this.addArguments(draft, delta.partial_json);
    }
    if (delta?.type === "thinking_delta" || delta?.type === "signature_delta") {
      const block = this.#reasoning.get(typeof event.index === "number" ? event.index : -1);
      const field = delta.type === "thinking_delta" ? "thinking" : "signature";
      const piece = delta[field];
      if (block && typeof piece === "string") {
        // Thinking arrives in pieces; a signature arrives whole, after it.
        const before = block[field];
        block[field] = field === "thinking" && typeof before === "string" ? before + piece : piece;
      }
    }
    // citations: nothing the person or the loop reads.
    return true;
  }

  protected override usage(): Usage {
    const { fresh, written, read } = this.#input;
    if (fresh + written + read + this.#output === 0) return ZERO_USAGE;
    return {
      promptTokens: fresh + written + read,
      cachedTokens: read,
      completionTokens: this.#output,
      ...(written > 0 ? { cacheWriteTokens: written } : {}),
    };
  }

  protected override finishReason(): string | undefined {
    if (this.#stopReason === undefined) return undefined;
    return FINISH[this.#stopReason] ?? "stop";
  }

  protected override extra(): Partial<ProviderResponse> {
    if (this.#reasoning.size === 0) return {};
    const blocks: ProviderBlock[] = [...this.#reasoning.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, block]) => block);
    return { reasoning: blocks };
  }
}
