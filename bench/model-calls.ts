/**
 * What a streamed model reply costs the calling side's CPU (issue 36): the
 * OpenAI SDK sending each request through the provider's own fetch, one
 * undici request whose body is read straight off the socket
 * (src/providers/model-fetch.ts), against Node's `fetch`, whose body is a
 * WHATWG stream (what the provider used before). Both read the reply with
 * the provider's reader into the same draft (openai-stream.ts). Each round
 * streams the load test's answer (a word per network chunk, 1 ms apart) to
 * many callers at once from a fake model in a child process, so that
 * `process.cpuUsage` here is the caller's alone. The sides take turns, in a
 * changing order, in the same run. `npm run bench -- model-calls`.
 */
import type { OpenAI } from "openai";
import { silentLogger } from "../src/core/logger.ts";
import { modelFetch } from "../src/providers/model-fetch.ts";
import { openAISdk } from "../src/providers/openai-sdk.ts";
import { readCompletionStream } from "../src/providers/openai-stream.ts";
import { freshProgress } from "../src/providers/reply-stream.ts";
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

export async function benchModelCalls(print: (line: string) => void): Promise<boolean> {
  print("\nStreamed model replies: CPU of the calling side a reply, in the same run");
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
