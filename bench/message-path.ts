/**
 * Which files of src/ one Slack message runs through, from the signed event
 * to the posted answer: a bot on the fake Slack and the fake model, in this
 * process, answers a warm-up mention (so lazy imports and first-use setup are
 * done), then V8's precise coverage is reset and a second mention is timed
 * and traced. Prints the src/ files whose functions ran for it, by folder,
 * leaving out src/testing/: the fake Slack and the fake model run in this
 * process too, but they stand in for the platform and the model, not for
 * the bot (and lived in test/ when the first figures were taken).
 *
 * Run it with `npx tsx bench/message-path.ts` (Redis at REDIS_URL, default
 * 127.0.0.1:6379). Not part of `npm run bench`: it counts files, not time.
 */
import { Session } from "node:inspector/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createBot, createLogger, openAIProvider, slackChannel } from "../src/index.ts";
import { startFakeOpenAI } from "../src/testing/fakes/openai-server.ts";
import { FAKE_SLACK, startFakeSlackApi } from "../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../src/testing/fakes/slack-requests.ts";
import { freePort, OPEN_DMS_CONFIG } from "../test/support/switchyard-process.ts";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const KIT = fileURLToPath(new URL("../src/testing/", import.meta.url));
const SECRET = "message-path-secret";

const slack = await startFakeSlackApi();
const model = await startFakeOpenAI();
model.script({ content: "Warmed up." }, { content: "The answer." });
const port = await freePort();
const bot = createBot({
  channels: [
    slackChannel({ botToken: FAKE_SLACK.botToken, signingSecret: SECRET, apiUrl: slack.url, port }),
  ],
  provider: openAIProvider({ apiKey: "sk-path", baseURL: model.url, model: "fake-model" }),
  prefix: `path-${process.pid}`,
  logger: createLogger({ level: "error" }),
  config: OPEN_DMS_CONFIG,
});
await bot.start();

/** Sends a mention and resolves once its answer is posted in its thread. */
async function mention(text: string): Promise<void> {
  const event = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${text}` });
  await sendEvent(`http://127.0.0.1:${port}/slack/events`, SECRET, event);
  while (!slack.messages.some((m) => m.thread_ts === event.ts && m.bot_id && m.text)) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

await mention("warm up");
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
await session.post("Profiler.takePreciseCoverage"); // resets the counts: only the next message counts
await mention("the traced one");
const { result } = await session.post("Profiler.takePreciseCoverage");
await session.post("Profiler.stopPreciseCoverage");
session.disconnect();
await bot.stop();
await Promise.all([slack.close(), model.close()]);

const ran = result
  .filter((script) => script.url.startsWith("file://"))
  .filter((script) => {
    const path = fileURLToPath(script.url);
    return path.startsWith(SRC) && !path.startsWith(KIT);
  })
  .filter((script) => script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)))
  .map((script) => relative(SRC, fileURLToPath(script.url)))
  .sort();
const byFolder = new Map<string, string[]>();
for (const file of ran) {
  const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : ".";
  byFolder.set(folder, [...(byFolder.get(folder) ?? []), file.slice(file.lastIndexOf("/") + 1)]);
}
for (const [folder, files] of byFolder)
  console.log(`${folder}/ (${files.length}): ${files.join(" ")}`);
console.log(`${ran.length} files of src/ ran for one Slack mention, event to posted answer`);
process.exit(0);
