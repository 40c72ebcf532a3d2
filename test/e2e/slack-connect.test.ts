import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendBlockAction,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import {
  SLACK_SECRET,
  SLACK_USERS,
  type SlackHarness,
  useSlackHarness,
  visibleIn,
} from "../support/slack-harness.ts";

/**
 * A Slack Connect channel shared with a partner's workspace. Slack names the
 * sender's team in `event.team` / `user_team`, can put it in the envelope's
 * `team_id` too (bolt-python's tests/slack_bolt/request/test_internals.py
 * shows such envelopes), and names the installation in
 * `authorizations[0].team_id`; interaction payloads carry the clicking
 * user's team in `team` (bolt-python's view_submission connect fixture).
 */
const PARTNER = "T0PARTNER";
const SHARED = "C0SHARED";

const startHarness = useSlackHarness();

function start(): Promise<SlackHarness> {
  return startHarness({
    users: {
      ...SLACK_USERS,
      U0GUEST: { name: "guest", real_name: "Gus Guest", team_id: PARTNER },
      U0THEIRADMIN: { name: "theiradmin", is_admin: true, team_id: PARTNER },
    },
  });
}

const ours = (conversation: string) => ({
  platform: "slack",
  workspace: FAKE_SLACK.teamId,
  channel: SHARED,
  conversation,
});

describe("Slack Connect", () => {
  it("keeps a shared thread one conversation under the installation's team, whichever team each sender is in", async () => {
    const h = await start();
    const [url] = h.events as [string];
    h.pipe.fake.script({ content: "first answer" }, { content: "second answer" });
    const asked = appMentionEvent({
      channel: SHARED,
      user: "U0GUEST",
      teamId: PARTNER,
      userTeam: PARTNER,
      text: `<@${FAKE_SLACK.botUserId}> what is a lease?`,
    });
    const thread = asked.ts as string;
    await sendEvent(url, SLACK_SECRET, asked, {
      teamId: PARTNER,
      installedTeamId: FAKE_SLACK.teamId,
      extShared: true,
    });
    await until(() => (visibleIn(h.slack, thread).includes("first answer") ? true : undefined));
    await sendEvent(
      url,
      SLACK_SECRET,
      messageEvent({ channel: SHARED, user: "U0HUMAN", text: "and a lock?", threadTs: thread }),
      { extShared: true },
    );
    await until(() => (visibleIn(h.slack, thread).includes("second answer") ? true : undefined));
    // The second turn remembers the guest's question: one conversation, not one per team.
    const users = h.pipe.fake.requests[1]?.body.messages
      .filter((m: { role: string }) => m.role === "user")
      .map((m: { content: string }) => m.content);
    expect(users).toEqual(["what is a lease?", "and a lock?"]);
  });

  it("stores a guest's `/tools off` and button click under the installation's team", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const done = await sendSlashCommand(url, SLACK_SECRET, {
      channelId: SHARED,
      userId: "U0GUEST",
      teamId: PARTNER,
      text: "off lookup",
    });
    expect(JSON.stringify(done.body)).toContain("lookup is now off");
    const stored = await h.pipe.app.store.intent.read(ours(SHARED));
    expect(stored.intent.decisions).toEqual({ lookup: false });

    const listed = await sendSlashCommand(url, SLACK_SECRET, {
      channelId: SHARED,
      userId: "U0GUEST",
      teamId: PARTNER,
    });
    const blocks = listed.body.blocks as { accessory?: { action_id: string; value: string } }[];
    const button = blocks.map((b) => b.accessory).find((a) => a?.value?.startsWith("lookup|"));
    expect(button?.value).toMatch(/^lookup\|on\|conversation/);
    await sendBlockAction(url, SLACK_SECRET, {
      actionId: button?.action_id as string,
      value: button?.value as string,
      channelId: SHARED,
      userId: "U0GUEST",
      teamId: PARTNER,
      userTeamId: PARTNER,
      messageTs: "1700000000.000777",
      responseUrl: h.slack.responseUrl({ channel: SHARED, messageTs: "1700000000.000777" }),
    });
    await until(() => (h.slack.responses.length ? true : undefined));
    expect((await h.pipe.app.store.intent.read(ours(SHARED))).intent.decisions).toEqual({
      lookup: true,
    });
  });

  it("does not take a partner workspace's admin for an admin of this one", async () => {
    const h = await start();
    const [url] = h.events as [string];
    const refused = await sendSlashCommand(url, SLACK_SECRET, {
      channelId: SHARED,
      userId: "U0THEIRADMIN",
      teamId: PARTNER,
      text: "off lookup workspace",
    });
    expect(JSON.stringify(refused.body)).toMatch(/Only workspace admins/);
    const ourAdmin = await sendSlashCommand(url, SLACK_SECRET, {
      channelId: SHARED,
      userId: "U0ADMIN",
      text: "off lookup workspace",
    });
    expect(JSON.stringify(ourAdmin.body)).toContain("lookup is now off");
  });
});
