import type { Usage } from "../core/agent/messages.ts";
import { ProviderError, type ProviderResponse } from "../core/agent/provider.ts";
import type { ModelLimits } from "../core/config/model-section.ts";
import type { LoggerPort } from "../core/logger.ts";

/**
 * What reading a reply stream means whichever API sends it: the progress the
 * retry loop and the failure messages read, the caps on the answer and on
 * tool calls, and the live text. Each API's events are read in its own file
 * (openai-stream.ts, anthropic/stream.ts) into a {@link ReplyDraft}.
 */

/** What one attempt's stream delivered so far, for the retry decision and for a failure's message. */
export interface StreamProgress {
  /** Whether a person may already have seen part of this attempt's reply. */
  textShown: boolean;
  /** The answer text so far (within the cap), kept when the attempt fails. */
  text: string;
  /** Stream events read, and how many of them were not chat completion chunks. */
  events: number;
  unreadable: number;
}

export function freshProgress(): StreamProgress {
  return { textShown: false, text: "", events: 0, unreadable: 0 };
}

/** Thrown when a stream ends without a finish reason; the progress says what came before. */
export class StreamEndedEarlyError extends Error {
  override readonly name = "StreamEndedEarlyError";
}

export type ReplyLimits = Pick<ModelLimits, "maxAnswerChars" | "maxToolCallChars" | "maxToolCalls">;

export interface StreamReading {
  readonly onText?: ((textSoFar: string) => void) | undefined;
  readonly progress: StreamProgress;
  readonly logger: LoggerPort;
  readonly limits: ReplyLimits;
}

/** A reply as one API's stream builds it, event by event. */
export interface ReplyDraft {
  /** Takes one stream event; false when the rest of the stream is not worth reading. */
  read(event: unknown): boolean;
  /** The response the stream amounts to; throws when it ended early or asked too much. */
  response(): ProviderResponse;
}

/**
 * Feeds the stream to the draft until it ends or the draft has enough. The
 * SDKs end the iteration quietly when their signal aborts, so the caller
 * checks the signal afterwards.
 */
export async function readReplyStream(
  events: AsyncIterable<unknown>,
  draft: ReplyDraft,
): Promise<ProviderResponse> {
  for await (const event of events) {
    if (!draft.read(event)) break;
  }
  return draft.response();
}

/** The answer text with `content` added within the cap, shown live; `cut` once it passed the cap. */
export function appendAnswer(
  soFar: string,
  content: string,
  { progress, onText, logger, limits }: StreamReading,
): { text: string; cut: boolean } {
  const room = limits.maxAnswerChars - soFar.length;
  const text = soFar + content.slice(0, room);
  progress.text = text;
  if (onText) {
    progress.textShown = true;
    showText(onText, text, logger);
  }
  return { text, cut: content.length > room };
}

/** What a reply that opened more than `maxToolCalls` calls ends the turn with. */
export function tooManyToolCalls(limits: ReplyLimits): ProviderError {
  return new ProviderError(
    "bad_response",
    `The model asked for more than ${limits.maxToolCalls} tool calls in one reply, so I ran none of them. Please try again, or ask for fewer things at once. (The limit is SWITCHYARD_MODEL_MAX_TOOL_CALLS.)`,
  );
}

/** A reply whose answer passed `maxAnswerChars`: the part kept, and a note saying so. */
export function cutAnswer(text: string, limits: ReplyLimits, usage: Usage): ProviderResponse {
  return {
    content: `${text}\n\n(This answer was cut here: it passed ${limits.maxAnswerChars} characters, the most one answer may have. Ask for the rest, or for a shorter answer.)`,
    toolCalls: [],
    finishReason: "length",
    usage,
  };
}

export type Fields = Readonly<Record<string, unknown>>;

/** A stream event is untrusted data: an object's fields, or `undefined` for anything else. */
export function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
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
