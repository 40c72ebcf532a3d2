/**
 * Two Slack apps in one deployment (`slack.accounts`) on one Events API
 * endpoint: each request goes to the app its `api_app_id` names, is verified
 * with that app's signing secret, and is answered with that app's token. One
 * message that mentions both bots is answered once by each.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { useStartCommand } from "../support/start-command.ts";
import { freePort } from "../support/switchyard-process.ts";

const ENG = {
  botToken: "xoxb-fake-eng-token",
  botUserId: "U0ENGBOT",
  botId: "B0ENGBOT",
  appId: "A0ENGAPP",
  secret: "eng-secret",
};
const MAIN_SECRET = "main-secret";

const bot = useStartCommand();

function writeConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), "switchyard-slack-accounts-")), "switchyard.yaml");
  writeFileSync(
    file,
    [
      "access:",
      "  dm: open",
      "agents:",
      "  - id: engineering",
      "slack:",
      "  accounts:",
      "    - id: eng",
      `      app_id: ${ENG.appId}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
      "      bot_token: ${SLACK_ENG_BOT_TOKEN}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
      "      signing_secret: ${SLACK_ENG_SIGNING_SECRET}",
      "      agent: engineering",
      "",
    ].join("\n"),
  );
  return file;
}

/** The Web API calls that wrote into a thread, with the token each came with. */
function writesTo(slack: FakeSlackApi, thread: string): (string | undefined)[] {
  return slack.calls
    .filter((c) => c.method.startsWith("chat.") && c.args.thread_ts === thread)
    .map((c) => c.token);
}

const replies = (slack: FakeSlackApi, thread: string) =>
  slack.messages.filter((m) => m.thread_ts === thread && m.bot_id && m.ts !== thread);

describe("two Slack apps in one deployment", () => {
  it("routes each request by api_app_id, verifies it with that app's secret and answers with its token", async () => {
    const slack = await startFakeSlackApi({ apps: [ENG] });
    bot.cleanup(() => slack.close());
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/slack/events`;
    const { logs } = await bot.start(
      {
        SWITCHYARD_CONFIG: writeConfig(),
        SWITCHYARD_HTTP_PORT: String(port),
        SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
        SLACK_SIGNING_SECRET: MAIN_SECRET,
        SLACK_ENG_BOT_TOKEN: ENG.botToken,
        SLACK_ENG_SIGNING_SECRET: ENG.secret,
        SLACK_API_URL: slack.url,
      },
      "Hi from main.",
    );
    // Both apps introduced themselves with their own tokens.
    expect(slack.callsTo("auth.test").map((c) => c.token)).toEqual(
      expect.arrayContaining([FAKE_SLACK.botToken, ENG.botToken]),
    );

    const toMain = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hello main` });
    expect((await sendEvent(url, MAIN_SECRET, toMain)).status).toBe(200);
    await until(
      () => replies(slack, toMain.ts as string).find((m) => m.text === "Hi from main."),
      30_000,
    );
    expect(replies(slack, toMain.ts as string).map((m) => m.text)).toEqual(["Hi from main."]);

    const toEng = appMentionEvent({ text: `<@${ENG.botUserId}> hello eng` });
    const engOptions = { appId: ENG.appId, botUserId: ENG.botUserId };
    expect((await sendEvent(url, ENG.secret, toEng, engOptions)).status).toBe(200);
    await until(
      () => replies(slack, toEng.ts as string).find((m) => m.text === "echo: hello eng"),
      30_000,
    );
    expect(replies(slack, toEng.ts as string).map((m) => m.text)).toEqual(["echo: hello eng"]);

    // Each answer went out with its own app's token.
    const mainWrites = writesTo(slack, toMain.ts as string);
    const engWrites = writesTo(slack, toEng.ts as string);
    expect(mainWrites.length).toBeGreaterThan(0);
    expect(engWrites.length).toBeGreaterThan(0);
    expect(new Set(mainWrites)).toEqual(new Set([FAKE_SLACK.botToken]));
    expect(new Set(engWrites)).toEqual(new Set([ENG.botToken]));

    // Signed with one app's secret while naming the other app: refused, and nothing is answered.
    const forged = appMentionEvent({ text: `<@${ENG.botUserId}> forged` });
    expect((await sendEvent(url, MAIN_SECRET, forged, engOptions)).status).toBe(401);
    const forgedBack = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> forged` });
    expect((await sendEvent(url, ENG.secret, forgedBack)).status).toBe(401);

    // One message that mentions both bots: each app takes it once, and answers once.
    const both = appMentionEvent({
      text: `<@${FAKE_SLACK.botUserId}> <@${ENG.botUserId}> hello both`,
    });
    expect((await sendEvent(url, MAIN_SECRET, both)).status).toBe(200);
    expect((await sendEvent(url, ENG.secret, both, engOptions)).status).toBe(200);
    // Slack's retry of the eng delivery is the same event again: no second answer.
    expect((await sendEvent(url, ENG.secret, both, { ...engOptions, retryNum: 1 })).status).toBe(
      200,
    );
    await until(
      () => (new Set(writesTo(slack, both.ts as string)).size === 2 ? true : undefined),
      30_000,
    );
    await until(() => (replies(slack, both.ts as string).length >= 2 ? true : undefined), 30_000);
    const next = appMentionEvent({ text: `<@${ENG.botUserId}> after`, channel: "C0GENERAL" });
    expect((await sendEvent(url, ENG.secret, next, engOptions)).status).toBe(200);
    await until(
      () => replies(slack, next.ts as string).find((m) => m.text === "echo: after"),
      30_000,
    );
    expect(replies(slack, both.ts as string)).toHaveLength(2);
    expect(replies(slack, forged.ts as string)).toEqual([]);
    expect(replies(slack, forgedBack.ts as string)).toEqual([]);
    expect(logs()).not.toContain(ENG.botToken);
    expect(logs()).not.toContain(ENG.secret);
  }, 90_000);
});
