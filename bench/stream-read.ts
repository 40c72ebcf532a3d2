/**
 * What reading the model's streamed reply costs the worker (issue 36): the
 * reader over the response's body (src/providers/event-stream.ts) against
 * the path it replaced, the body piped through the guarding fetch into the
 * SDK's `Stream`, both feeding the same draft from the same recorded bytes,
 * in the same run. `npm run bench -- stream-read`.
 */
import type OpenAI from "openai";
import { Stream } from "openai/streaming";
import { silentLogger } from "../src/core/logger.ts";
import { openAISdk } from "../src/providers/openai-sdk.ts";
import { CompletionDraft, readCompletionStream } from "../src/providers/openai-stream.ts";
import { freshProgress, readReplyStream } from "../src/providers/reply-stream.ts";
import { type FetchWatch, type OkBody, watchedFetch } from "../src/providers/watched-fetch.ts";
import { toChunks } from "../src/testing/fakes/openai-server.ts";
import { formatNs, measurePairAsync } from "./harness.ts";
import { answerFor } from "./streams-run.ts";

/** The reader must cost at most this share of the SDK's path on the load test's answer. */
const TARGET = 0.5;

const encoder = new TextEncoder();

/** A recorded reply: the SSE bytes of each network chunk, as the fake server writes them. */
function recorded(message: OpenAI.ChatCompletionMessage, eventsPerChunk = 1): Uint8Array[] {
  const completion: OpenAI.ChatCompletion = {
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 0,
    model: "fake-model",
    choices: [{ index: 0, message, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 900, completion_tokens: 300, total_tokens: 1200 },
  };
  const events = [
    ...toChunks(completion, true).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
    "data: [DONE]\n\n",
  ];
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < events.length; at += eventsPerChunk) {
    chunks.push(encoder.encode(events.slice(at, at + eventsPerChunk).join("")));
  }
  return chunks;
}

/** A body that hands out the recorded chunks as undici's does: a byte stream, a chunk per pull. */
function bodyOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk) controller.enqueue(chunk.slice());
      else controller.close();
    },
  });
}

const LIMITS = { maxAnswerChars: 100_000, maxToolCallChars: 100_000, maxToolCalls: 32 };

function watchOf(): FetchWatch {
  let heard = 0;
  return {
    heard: () => void heard++,
    maxEventBytes: 8 * LIMITS.maxAnswerChars + 64 * 1024,
    maxErrorBytes: 64 * 1024,
  };
}

/** The attempt's fetch, answering with the recorded reply. */
function fetchOf(chunks: readonly Uint8Array[], watch: FetchWatch, okBody: OkBody) {
  const base = (async () =>
    new Response(bodyOf(chunks), {
      headers: { "content-type": "text/event-stream; charset=utf-8" },
    })) as unknown as typeof fetch;
  return watchedFetch(watch, okBody, base);
}

const reading = () => ({ progress: freshProgress(), logger: silentLogger, limits: LIMITS });

/** Now: the response as undici gives it, read by event-stream.ts. */
async function readNow(chunks: readonly Uint8Array[]) {
  const watch = watchOf();
  const signal = new AbortController().signal;
  const response = await fetchOf(chunks, watch, "as-is")("http://model/v1/chat/completions");
  return readCompletionStream(response, {
    ...reading(),
    watch: { heard: watch.heard, maxEventBytes: watch.maxEventBytes, signal },
    sdkLog: () => {},
  });
}

/** Before: the guarded body in a new Response, through the SDK's Stream. */
async function readBefore(chunks: readonly Uint8Array[]) {
  const watch = watchOf();
  const response = await fetchOf(chunks, watch, "guarded")("http://model/v1/chat/completions");
  const stream = Stream.fromSSEResponse<unknown>(response, new AbortController());
  return readReplyStream(stream, new CompletionDraft(reading()));
}

export async function benchStreamRead(print: (line: string) => void): Promise<boolean> {
  print("\nReading the model's stream: the SDK's Stream vs event-stream.ts, in the same run");
  await openAISdk();
  const toolCall: OpenAI.ChatCompletionMessage = {
    role: "assistant",
    content: null,
    refusal: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "write_note", arguments: JSON.stringify({ text: answerFor(3) }) },
      },
    ],
  };
  const answer = (text: string): OpenAI.ChatCompletionMessage => ({
    role: "assistant",
    content: text,
    refusal: null,
  });
  const cases = [
    ["load test's 5 s answer, a word per network chunk", recorded(answer(answerFor(7))), true],
    ["the same answer, 8 events per network chunk", recorded(answer(answerFor(7)), 8), false],
    ["a tool call, arguments in 8-char pieces", recorded(toolCall), false],
  ] as const;
  let ok = true;
  for (const [name, chunks, targeted] of cases) {
    // Both must read the reply alike before their times mean anything.
    const [now, before] = [await readNow(chunks), await readBefore(chunks)];
    if (JSON.stringify(now) !== JSON.stringify(before)) {
      print(`${name}: the two readers disagree`);
      return false;
    }
    const timing = await measurePairAsync(
      () => readNow(chunks),
      () => readBefore(chunks),
      { batches: 21 },
    );
    const perChunk = (ns: number) => formatNs(ns / chunks.length).padStart(9);
    if (targeted && timing.ratio > TARGET) ok = false;
    print(
      `${`${name} (${chunks.length} chunks)`.padEnd(62)} per chunk: SDK ${perChunk(timing.baseline.median)}  now ${perChunk(timing.subject.median)}  ${timing.ratio.toFixed(2)}x${targeted ? `  (target <= ${TARGET}x: ${timing.ratio <= TARGET ? "met" : "MISSED"})` : ""}`,
    );
  }
  return ok;
}
