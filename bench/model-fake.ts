/**
 * The fake model of bench/model-calls.ts, in a process of its own so that
 * the bench's CPU figures are the calling side's alone: every request is
 * answered with the streams bench's answer, a word per network chunk,
 * `chunkDelayMs` (argv) apart; its base URL on the first line of stdout,
 * and an end when stdin closes.
 */
import { startFakeOpenAI } from "../src/testing/fakes/openai-server.ts";
import { answerFor } from "./streams-run.ts";

const chunkDelayMs = Number(process.argv[2] ?? 1);
const model = await startFakeOpenAI({
  responder: () => ({ content: answerFor(7), chunkDelayMs }),
});
process.stdout.write(`${model.url}\n`);
process.stdin.resume();
process.stdin.on("end", () => void model.close().then(() => process.exit(0)));
