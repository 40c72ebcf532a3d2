/**
 * The fake model of bench/model-calls.ts, in a process of its own so that
 * the bench's CPU figures are the calling side's alone: every request is
 * answered with the streams bench's answer, a word per network chunk,
 * `chunkDelayMs` (argv) apart, by an OpenAI-compatible server or, with
 * `anthropic` after it, an Anthropic one; its base URL on the first line of
 * stdout, and an end when stdin closes.
 */
import { startFakeAnthropic } from "../src/testing/fakes/anthropic.ts";
import { startFakeOpenAI } from "../src/testing/fakes/openai-server.ts";
import { answerFor } from "./streams-run.ts";

const chunkDelayMs = Number(process.argv[2] ?? 1);
const reply = () => ({ content: answerFor(7), chunkDelayMs });
const model =
  process.argv[3] === "anthropic"
    ? await startFakeAnthropic({ apiKey: "bench", responder: reply })
    : await startFakeOpenAI({ responder: reply });
process.stdout.write(`${model.url}\n`);
process.stdin.resume();
process.stdin.on("end", () => void model.close().then(() => process.exit(0)));
