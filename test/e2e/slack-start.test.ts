import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { FAKE_SLACK, startFakeSlackApi } from "../fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../fakes/slack-requests.ts";
import { connectRedis, deleteKeysUnder, REDIS_URL, uniquePrefix } from "../support/redis.ts";
import { OPEN_DMS_CONFIG } from "../support/switchyard-process.ts";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

let child: ChildProcess | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  child?.kill("SIGTERM");
  await new Promise((resolve) => child?.once("exit", resolve) ?? resolve(undefined));
  child = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("switchyard start with Slack credentials", () => {
  it("runs the Slack channel instead of the console and answers a mention in its thread", async () => {
    const slack = await startFakeSlackApi();
    const openai = await startFakeOpenAI();
    openai.script({ content: "Hi from the real process." });
    const prefix = uniquePrefix("slackstart");
    cleanups.push(
      () => slack.close(),
      () => openai.close(),
      async () => {
        const redis = connectRedis();
        await deleteKeysUnder(redis, prefix);
        redis.disconnect();
      },
    );
    const port = await freePort();
    child = spawn(process.execPath, [BIN, "start"], {
      env: {
        ...process.env,
        REDIS_URL,
        SWITCHYARD_PREFIX: prefix,
        SWITCHYARD_CONFIG: OPEN_DMS_CONFIG,
        SWITCHYARD_METRICS_PORT: "0",
        SWITCHYARD_HTTP_PORT: String(port),
        SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
        SLACK_SIGNING_SECRET: "start-secret",
        SLACK_API_URL: slack.url,
        OPENAI_BASE_URL: openai.url,
        OPENAI_API_KEY: "test",
        SWITCHYARD_MODEL: "fake-model",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let logs = "";
    child.stderr?.on("data", (d) => {
      logs += String(d);
    });
    const deadline = Date.now() + 30_000;
    while (!logs.includes("channels started") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(logs).toContain('"platform":"slack"');
    expect(logs).not.toContain(FAKE_SLACK.botToken);

    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hello` });
    const result = await sendEvent(
      `http://127.0.0.1:${port}/slack/events`,
      "start-secret",
      mention,
    );
    expect(result.status).toBe(200);
    const until = Date.now() + 15_000;
    let shown: string[] = [];
    while (Date.now() < until) {
      shown = slack.messages
        .filter((m) => m.thread_ts === mention.ts && m.bot_id)
        .map((m) => m.text);
      if (shown.includes("Hi from the real process.")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(shown).toEqual(["Hi from the real process."]);
    expect(slack.callsTo("auth.test").length).toBeGreaterThan(0);
  }, 60_000);
});
