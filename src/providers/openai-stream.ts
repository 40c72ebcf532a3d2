import type { Usage } from "../core/agent/messages.ts";
import { ZERO_USAGE } from "../core/agent/messages.ts";
import type { ProviderResponse } from "../core/agent/provider.ts";
import { type EventSourceMessage, type EventStreamWatch, readEventStream } from "./event-stream.ts";
import { socketBody } from "./model-fetch.ts";
import { openAISdk } from "./openai-sdk.ts";
import { CappedReplyDraft } from "./reply-draft.ts";
import { type Fields, fieldsOf, type ReplyDraft, type StreamReading } from "./reply-stream.ts";
import type { ToolCallDraft } from "./tool-call-limits.ts";

export interface CompletionReading extends StreamReading {
  readonly watch: EventStreamWatch;
  /**
   * Where an event that is not JSON is logged: the SDK's logger, so the line
   * reads as it did when the SDK's own stream reader wrote it.
   */
  readonly sdkLog: (message: string, ...details: unknown[]) => void;
}

/**
 * Reads a Chat Completions stream into one response: text deltas joined (and
 * handed to `onText` as they grow), tool calls assembled by their `index` from
 * an opening delta (id, name) and argument pieces, the finish reason, and the
 * usage chunk that `stream_options.include_usage` adds at the end.
 *
 * Every event is read as untrusted data: one that is not a chunk is counted
 * and skipped, a field of the wrong type is ignored. What is kept is capped:
 * an answer past `maxAnswerChars` is cut with a note and the rest of the
 * stream is not read; a tool call's arguments past `maxToolCallChars` (or
 * nested too deeply) are replaced by a note the model will read; a reply with
 * more than `maxToolCalls` calls ends the turn with an answer saying so.
 *
 * The body is read here (event-stream.ts), not by the SDK's `Stream`, and
 * read as that did: `[DONE]` ends the reply (what follows is read to the end
 * of the body and ignored), an event that is not JSON throws its
 * `SyntaxError`, and one whose data carries an `error` throws the SDK's
 * `APIError` without a status, as a failure in the middle of a reply. Reading
 * ends quietly when the signal aborts, so the caller checks it afterwards.
 */
export async function readCompletionStream(
  response: Response,
  options: CompletionReading,
): Promise<ProviderResponse> {
  const { APIError } = await openAISdk();
  const draft = new CompletionDraft(options);
  let done = false;
  await readEventStream(
    socketBody(response) ?? response.body,
    options.watch,
    ({ data }: EventSourceMessage) => {
      if (done) return true;
      if (data.startsWith("[DONE]")) {
        done = true;
        return true;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch (error) {
        options.sdkLog("Could not parse message into JSON:", data);
        throw error;
      }
      const failed = fieldsOf(chunk)?.error;
      if (failed) throw new APIError(undefined, failed as object, undefined, response.headers);
      return draft.read(chunk);
    },
  );
  return draft.response();
}

/**
 * The reply as the stream builds it, event by event, within the limits.
 * Exported for the benchmark, which feeds it the SDK's `Stream` to compare.
 */
export class CompletionDraft extends CappedReplyDraft implements ReplyDraft {
  #refusal = "";
  #finishReason: string | undefined;
  #usage: Usage = ZERO_USAGE;
  #lastIndex: number | undefined;

  constructor(options: StreamReading) {
    super(options, "call_");
  }

  protected override readEvent(value: unknown): boolean {
    const chunk = fieldsOf(value);
    if (!chunk || (!Array.isArray(chunk.choices) && chunk.usage === undefined)) {
      this.options.progress.unreadable++;
      return true;
    }
    this.#usage = usageOf(chunk.usage) ?? this.#usage;
    const choice = firstChoice(chunk.choices);
    if (!choice) return true;
    const delta = fieldsOf(choice.delta) ?? {};
    if (typeof delta.content === "string" && delta.content !== "" && !this.addText(delta.content)) {
      return false;
    }
    if (typeof delta.refusal === "string") {
      const room = this.options.limits.maxAnswerChars - this.#refusal.length;
      this.#refusal += delta.refusal.slice(0, room);
    }
    const pieces = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
    if (!this.#addCallPieces(pieces)) return false;
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
    return true;
  }

  /** Adds tool call pieces to their calls; false when the reply opens more calls than allowed. */
  #addCallPieces(pieces: readonly unknown[]): boolean {
    for (const raw of pieces) {
      const piece = fieldsOf(raw);
      const fn = fieldsOf(piece?.function);
      const id = typeof piece?.id === "string" ? piece.id : undefined;
      const name = typeof fn?.name === "string" ? fn.name : undefined;
      const args = typeof fn?.arguments === "string" ? fn.arguments : undefined;
      // A piece that carries none of them adds nothing, and must not open a nameless call.
      if (!piece || (id === undefined && name === undefined && args === undefined)) continue;
      const index = indexOf(piece, this.calls, this.#lastIndex);
      const draft = this.calls.get(index) ?? this.openCall(index);
      if (!draft) return false;
      this.#lastIndex = index;
      // Some servers repeat the id and name on every piece: first one wins.
      if (id && !draft.id) draft.id = id;
      if (name && !draft.name) draft.name = name;
      if (args) this.addArguments(draft, args);
    }
    return true;
  }

  protected override finishReason(): string | undefined {
    return this.#finishReason;
  }

  protected override usage(): Usage {
    return this.#usage;
  }

  /** A refusal is the answer when there is no other. */
  protected override content(): string {
    return this.answer || this.#refusal;
  }
}

/** Choice 0; a server that sends a single choice without an index means that one. */
function firstChoice(choices: unknown): Fields | undefined {
  if (!Array.isArray(choices)) return undefined;
  const indexed = choices.find((c) => fieldsOf(c)?.index === 0);
  if (indexed) return fieldsOf(indexed);
  const only = choices.length === 1 ? fieldsOf(choices[0]) : undefined;
  return only && only.index === undefined ? only : undefined;
}

/**
 * A piece's call, by its `index`. Servers that leave the index out send a
 * call's pieces in a row: a new id opens the next call, anything else
 * continues the last one.
 */
function indexOf(
  piece: Fields,
  drafts: ReadonlyMap<number, ToolCallDraft>,
  lastIndex: number | undefined,
): number {
  const { index, id } = piece;
  if (typeof index === "number" && Number.isInteger(index) && index >= 0) return index;
  if (lastIndex === undefined) return 0;
  const opensNew = typeof id === "string" && id !== "" && drafts.get(lastIndex)?.id !== id;
  return opensNew ? Math.max(...drafts.keys()) + 1 : lastIndex;
}

function usageOf(value: unknown): Usage | undefined {
  const usage = fieldsOf(value);
  if (!usage) return undefined;
  const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : 0);
  return {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    cachedTokens: count(fieldsOf(usage.prompt_tokens_details)?.cached_tokens),
  };
}
