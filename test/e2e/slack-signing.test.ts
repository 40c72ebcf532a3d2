import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { SLACK_SECRET, settle, useSlackHarness, visibleIn } from "../support/slack-harness.ts";

const start = useSlackHarness();

const now = () => Math.floor(Date.now() / 1000);
const mention = () => appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hello` });

describe("Slack request timestamps", () => {
  it("refuses a validly signed request dated six minutes in the future with 401, and takes nothing", async () => {
    const harness = await start();
    const [url] = harness.events as [string];
    const event = mention();
    const sent = await sendEvent(url, SLACK_SECRET, event, { timestamp: now() + 6 * 60 });
    expect(sent.status).toBe(401);
    const command = await sendSlashCommand(url, SLACK_SECRET, {}, { timestamp: now() + 6 * 60 });
    expect(command.status).toBe(401);
    await settle();
    expect(harness.pipe.fake.requests).toHaveLength(0);
    expect(visibleIn(harness.slack, event.ts as string)).toEqual([]);
    expect(harness.warnings.map((w) => w.message).join("\n")).toMatch(/clock/);
  });

  it("refuses one dated six minutes in the past, as Bolt does", async () => {
    const harness = await start();
    const [url] = harness.events as [string];
    const sent = await sendEvent(url, SLACK_SECRET, mention(), { timestamp: now() - 6 * 60 });
    expect(sent.status).toBe(401);
  });

  it("takes one within five minutes either way", async () => {
    const harness = await start();
    const [url] = harness.events as [string];
    harness.pipe.fake.script({ content: "ahead" }, { content: "behind" });
    const ahead = mention();
    expect((await sendEvent(url, SLACK_SECRET, ahead, { timestamp: now() + 4 * 60 })).status).toBe(
      200,
    );
    const behind = mention();
    expect((await sendEvent(url, SLACK_SECRET, behind, { timestamp: now() - 4 * 60 })).status).toBe(
      200,
    );
    const slack = harness.slack;
    await until(() => (visibleIn(slack, ahead.ts as string).length ? true : undefined));
    await until(() => (visibleIn(slack, behind.ts as string).length ? true : undefined));
  });
});
