import type { Usage } from "../core/agent/messages.ts";
import type { ProviderResponse } from "../core/agent/provider.ts";
import { noteStreamEvent } from "../observability/tracing-model.ts";
import {
  appendAnswer,
  cutAnswer,
  type ReplyDraft,
  StreamEndedEarlyError,
  type StreamReading,
  tooManyToolCalls,
} from "./reply-stream.ts";
import { finishedToolCall, type ToolCallDraft } from "./tool-call-limits.ts";

/**
 * A reply as a stream builds it, within the caps, whichever API sends it: the
 * answer text (shown live, cut at `maxAnswerChars`), the tool calls by their
 * index (at most `maxToolCalls`, arguments counted past `maxToolCallChars`)
 * and the response they amount to. Each API's file reads its own events
 * ({@link readEvent}) and says how its stream finishes and counts tokens.
 */
export abstract class CappedReplyDraft implements ReplyDraft {
  #text = "";
  /** The answer passed `maxAnswerChars`. */
  #cut = false;
  #tooManyCalls = false;
  /** Tool calls by their index in the reply. */
  protected readonly calls = new Map<number, ToolCallDraft>();
  readonly #callIdPrefix: string;

  constructor(
    protected readonly options: StreamReading,
    /** What a made-up id for a call that came without one starts with ("call_", "toolu_"). */
    callIdPrefix: string,
  ) {
    this.#callIdPrefix = callIdPrefix;
  }

  read(event: unknown): boolean {
    const { progress } = this.options;
    progress.events++;
    if (progress.events === 1) noteStreamEvent();
    return this.readEvent(event);
  }

  /** Takes one of this API's stream events; false when the rest of the stream is not worth reading. */
  protected abstract readEvent(event: unknown): boolean;

  /** The reason the stream gave for finishing, in Chat Completions words; undefined: it gave none. */
  protected abstract finishReason(): string | undefined;

  protected abstract usage(): Usage;

  /** The answer so far, within the cap. */
  protected get answer(): string {
    return this.#text;
  }

  /** What the response says: the answer by default. */
  protected content(): string {
    return this.#text;
  }

  /** Fields of the response only this API fills in. */
  protected extra(): Partial<ProviderResponse> {
    return {};
  }

  /** Appends answer text and shows it; false once the answer passes its cap. */
  protected addText(content: string): boolean {
    const added = appendAnswer(this.#text, content, this.options);
    this.#text = added.text;
    if (added.cut) {
      // What follows is more of an answer nobody will read; stop downloading it.
      this.#cut = true;
      return false;
    }
    return true;
  }

  /** Opens the call at `index`; undefined, and the reply refused, when it is one call too many. */
  protected openCall(index: number, id = "", name = ""): ToolCallDraft | undefined {
    if (this.calls.size >= this.options.limits.maxToolCalls) {
      this.#tooManyCalls = true;
      return undefined;
    }
    const draft = { id, name, arguments: "", chars: 0 };
    this.calls.set(index, draft);
    return draft;
  }

  /** Adds a piece of a call's arguments; past the cap pieces are only counted, so the note can say how big the call was. */
  protected addArguments(draft: ToolCallDraft, piece: string): void {
    draft.chars += piece.length;
    if (draft.chars <= this.options.limits.maxToolCallChars) draft.arguments += piece;
  }

  /** The response the stream amounts to; throws when it asked for too many calls or ended early. */
  response(): ProviderResponse {
    const { limits } = this.options;
    if (this.#tooManyCalls) throw tooManyToolCalls(limits);
    if (this.#cut) return cutAnswer(this.#text, limits, this.usage());
    const finishReason = this.finishReason();
    if (finishReason === undefined) {
      throw new StreamEndedEarlyError("The stream ended before the model finished its reply.");
    }
    const content = this.content();
    return {
      content: content === "" ? null : content,
      toolCalls: [...this.calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, draft]) => finishedToolCall(draft, limits, this.#callIdPrefix)),
      finishReason,
      usage: this.usage(),
      ...this.extra(),
    };
  }
}
