/**
 * What a streamed model reply costs the calling side's CPU (issue 36).
 *
 * - OpenAI-compatible: the OpenAI SDK sending each request through the
 *   provider's own fetch, one undici request whose body is read straight
 *   off the socket (src/providers/model-fetch.ts), against Node's `fetch`,
 *   whose body is a WHATWG stream (what the provider used before). Both
 *   read the reply with the provider's reader into the same draft
 *   (openai-stream.ts).
 * - Anthropic: the provider as it is (the same fetch, the body read by
 *   anthropic/stream.ts) against what it was: Node's `fetch` through the
 *   guarding stream, read by the SDK's own `Stream` into the same draft.
 *
 * Each round streams the load test's answer (a word per network chunk, 1 ms
 * apart) to many callers at once from a fake model in a child process, so
 * that `process.cpuUsage` here is the caller's alone. The sides take turns,
 * in a changing order, in the same run. `npm run bench -- model-calls`.
 */
import type * as AnthropicSDK from "@anthropic-ai/sdk";
import type { OpenAI } from "openai";
import { silentLogger } from "../src/core/logger.ts";
import { MessageDraft, readMessageStream } from "../src/providers/anthropic/stream.ts";
import { modelFetch } from "../src/providers/model-fetch.ts";
import { openAISdk } from "../src/providers/openai-sdk.ts";
import { readCompletionStream } from "../src/providers/openai-stream.ts";
import { freshProgress, readReplyStream } from "../src/providers/reply-stream.ts";
import { type FetchWatch, watchedFetch } from "../src/providers/watched-fetch.ts";
import { compareSides, cpuPerCall, startFakeProcess } from "./caller-cpu.ts";
import { answerFor } from "./streams-run.ts";

/** The provider's fetch must cost at most this share of Node's fetch a reply. */
const TARGET = 0.8;
const REPLIES = 400;
const IN_FLIGHT = 200;
const ROUNDS = 7;
const LIMITS = { maxAnswerChars: 100_000, maxToolCallChars: 100_000, maxToolCalls: 32 };

/** One streamed reply, as the provider's attempt makes it, through `base`; its text. */
async function reply(client: OpenAI, base: typeof fetch): Promise<string> {
  const watch: FetchWatch = { heard: () => {}, maxEventBytes: 1 << 20, maxErrorBytes: 64 * 1024 };
  const signal = new AbortController().signal;
  const response = await client
    .withOptions({ fetch: watchedFetch(watch, "as-is", base) })
    .chat.completions.create(
      { model: "fake-model", stream: true, messages: [{ role: "user", content: "how?" }] },
      { signal },
    )
    .asResponse();
  const read = await readCompletionStream(response, {
    progress: freshProgress(),
    logger: silentLogger,
    limits: LIMITS,
    watch: { heard: watch.heard, maxEventBytes: watch.maxEventBytes, signal },
    sdkLog: () => {},
  });
  return read.content ?? "";
}

/** What one Anthropic reply is read by: the provider's reader, or the SDK's `Stream` it replaced. */
type AnthropicSide = "provider" | "sdk";

/** One streamed Anthropic reply, as the provider's attempt makes it (or made it); its text. */
async function anthropicReply(
  sdk: typeof AnthropicSDK,
  client: AnthropicSDK.Anthropic,
  side: AnthropicSide,
): Promise<string> {
  const watch: FetchWatch = { heard: () => {}, maxEventBytes: 1 << 20, maxErrorBytes: 64 * 1024 };
  const signal = new AbortController().signal;
  const body: AnthropicSDK.Anthropic.MessageCreateParamsStreaming = {
    model: "claude-bench",
    max_tokens: 1024,
    stream: true,
    messages: [{ role: "user", content: "how?" }],
  };
  const reading = { progress: freshProgress(), logger: silentLogger, limits: LIMITS };
  if (side === "sdk") {
    const stream = await client
      .withOptions({ fetch: watchedFetch(watch) })
      .messages.create(body, { signal });
    return (await readReplyStream(stream, new MessageDraft(reading))).content ?? "";
  }
  const response = await client
    .withOptions({ fetch: watchedFetch(watch, "as-is", modelFetch) })
    .messages.create(body, { signal })
    .asResponse();
  const read = await readMessageStream(response, {
    ...reading,
    watch: { heard: watch.heard, maxEventBytes: watch.maxEventBytes, signal },
    sdk,
    request: { method: "post", url: "http://bench/v1/messages" },
    sdkLog: () => {},
  });
  return read.content ?? "";
}

/** The Anthropic pair: the provider's reader over its fetch against the SDK's `Stream` over Node's. */
async function benchAnthropicCalls(print: (line: string) => void): Promise<boolean> {
  const fake = await startFakeProcess("./model-fake.ts", ["1", "anthropic"]);
  try {
    const sdk = await import("@anthropic-ai/sdk");
    const client = new sdk.Anthropic({ apiKey: "bench", baseURL: fake.address, maxRetries: 0 });
    const sides = [
      ["Anthropic SDK's Stream, Node's fetch", "sdk"],
      ["Anthropic reader, model fetch", "provider"],
    ] as const;
    for (const [name, side] of sides) {
      const text = await anthropicReply(sdk, client, side);
      if (text !== answerFor(7)) {
        print(`${name}: read ${JSON.stringify(text.slice(0, 80))}…, not the answer`);
        return false;
      }
    }
    const round = (side: AnthropicSide) =>
      cpuPerCall(REPLIES, IN_FLIGHT, () => anthropicReply(sdk, client, side));
    const [before, now] = await compareSides(sides, ROUNDS, round, print, " µs a reply");
    const ratio = (now?.median ?? 0) / (before?.median ?? 1);
    print(
      `${REPLIES} replies a round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds: Anthropic reader ${ratio.toFixed(2)}x the SDK's Stream (target <= ${TARGET}x: ${ratio <= TARGET ? "met" : "MISSED"})`,
    );
    return ratio <= TARGET;
  } finally {
    await fake.stop();
  }
}

export async function benchModelCalls(print: (line: string) => void): Promise<boolean> {
  print("\nStreamed model replies: CPU of the calling side a reply, in the same run");
  const openAI = await benchOpenAICalls(print);
  const anthropic = await benchAnthropicCalls(print);
  return openAI && anthropic;
}

/** The OpenAI-compatible pair: the provider's fetch against Node's, both read by the provider's reader. */
async function benchOpenAICalls(print: (line: string) => void): Promise<boolean> {
  const fake = await startFakeProcess("./model-fake.ts", ["1"]);
  try {
    const client = new (await openAISdk()).OpenAI({
      apiKey: "bench",
      baseURL: fake.address,
      maxRetries: 0,
    });
    const sides = [
      ["Node's fetch (web streams)", fetch],
      ["model fetch (socket stream)", modelFetch],
    ] as const;
    // Each side must read the whole answer before its time means anything.
    for (const [name, base] of sides) {
      const text = await reply(client, base);
      if (text !== answerFor(7)) {
        print(`${name}: read ${JSON.stringify(text.slice(0, 80))}…, not the answer`);
        return false;
      }
    }
    const round = (base: typeof fetch) => cpuPerCall(REPLIES, IN_FLIGHT, () => reply(client, base));
    const [before, now] = await compareSides(sides, ROUNDS, round, print, " µs a reply");
    const ratio = (now?.median ?? 0) / (before?.median ?? 1);
    print(
      `${REPLIES} replies a round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds: model fetch ${ratio.toFixed(2)}x Node's fetch (target <= ${TARGET}x: ${ratio <= TARGET ? "met" : "MISSED"})`,
    );
    return ratio <= TARGET;
  } finally {
    await fake.stop();
  }
}
