import { describe, expect, it } from "vitest";
import { FAKE_SLACK, startFakeSlackApi } from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { useStartCommand } from "../support/start-command.ts";
import { freePort } from "../support/switchyard-process.ts";

const bot = useStartCommand();

describe("switchyard start with Slack credentials", () => {
  it("runs the Slack channel instead of the console and answers a mention in its thread", async () => {
    const slack = await startFakeSlackApi();
    bot.cleanup(() => slack.close());
    const port = await freePort();
    const { logs } = await bot.start(
      {
        SWITCHYARD_HTTP_PORT: String(port),
        SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
        SLACK_SIGNING_SECRET: "start-secret",
        SLACK_API_URL: slack.url,
      },
      "Hi from the real process.",
    );
    expect(logs()).toContain('"platform":"slack"');
    expect(logs()).not.toContain(FAKE_SLACK.botToken);

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
