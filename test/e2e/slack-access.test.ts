import { describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  settle,
  useSlackHarness,
  visibleFlat,
  visibleIn,
} from "../support/slack-harness.ts";

const startHarness = useSlackHarness();

/** U0ADMIN owns the bot; the rest is the product's defaults unless a test says more. */
function config(extra = ""): SwitchyardConfig {
  return parseConfig(`permissions:\n  owners: [slack:U0ADMIN]\n${extra}`, "switchyard.yaml");
}

async function start(cfg: SwitchyardConfig) {
  const h = await startHarness({ config: () => cfg });
  return { h, url: h.events[0] as string };
}

const dm = (user: string, channel: string, text: string) =>
  messageEvent({ text, user, channel, channelType: "im" });

/** The bot's flat messages once there are `count` and the last is whole (answers stream by edits). */
async function flat(
  h: SlackHarness,
  channel: string,
  count: number,
  last?: string,
): Promise<string[]> {
  return until(() => {
    const texts = visibleFlat(h.slack, channel);
    if (texts.length < count) return undefined;
    return last === undefined || texts[count - 1] === last ? texts : undefined;
  });
}

describe("who may talk to the Slack bot", () => {
  it("gives a stranger in a DM a pairing code, answers them once an owner approves it", async () => {
    const { h, url } = await start(config());
    await sendEvent(url, SLACK_SECRET, dm("U0HUMAN", "D0HUMAN", "hello?"));
    const [pairing = ""] = await flat(h, "D0HUMAN", 1);
    const code = /pairing code is ([A-Z2-9]{8})/.exec(pairing)?.[1];
    expect(code).toBeDefined();
    expect(pairing).toContain("(You are slack:U0HUMAN.)");
    await sendEvent(url, SLACK_SECRET, dm("U0HUMAN", "D0HUMAN", "still there?"));
    await settle();
    expect(visibleFlat(h.slack, "D0HUMAN")).toHaveLength(1);

    // Slack keeps "/" for its own slash commands, so a command typed in a DM starts with "!".
    await sendEvent(url, SLACK_SECRET, dm("U0ADMIN", "D0ADMIN", `!access approve ${code}`));
    const [approved = ""] = await flat(h, "D0ADMIN", 1);
    expect(approved).toContain("Approved human (slack:U0HUMAN)");

    await sendEvent(url, SLACK_SECRET, dm("U0HUMAN", "D0HUMAN", "now?"));
    await flat(h, "D0HUMAN", 2, "echo: now?");
    expect(h.pipe.fake.requests).toHaveLength(1);
  });

  it("refuses a channel that is not on the allow list once, and answers one that is", async () => {
    const { h, url } = await start(
      config("access:\n  groups: allowlist\n  allow: [slack:C0OPEN]\n"),
    );
    const mention = appMentionEvent({
      text: `<@${FAKE_SLACK.botUserId}> hi`,
      channel: "C0GENERAL",
    });
    await sendEvent(url, SLACK_SECRET, mention);
    const [refusal = ""] = await until(() => {
      const texts = visibleIn(h.slack, mention.ts as string);
      return texts.length > 0 ? texts : undefined;
    });
    expect(refusal).toBe(
      "This group is not on this bot's allow list (slack:chat:C0GENERAL). Ask one of its owners to add it to access.allow.",
    );
    const again = appMentionEvent({
      text: `<@${FAKE_SLACK.botUserId}> hello?`,
      channel: "C0GENERAL",
    });
    await sendEvent(url, SLACK_SECRET, again);

    const allowed = appMentionEvent({
      text: `<@${FAKE_SLACK.botUserId}> plan?`,
      channel: "C0OPEN",
    });
    await sendEvent(url, SLACK_SECRET, allowed);
    await until(() =>
      visibleIn(h.slack, allowed.ts as string)[0] === "echo: plan?" ? true : undefined,
    );
    await settle();
    expect(visibleIn(h.slack, again.ts as string)).toEqual([]);
    expect(h.pipe.fake.requests).toHaveLength(1);
  });

  it("answers 20 of 25 DMs under user: 20/10m, says so once, then stays silent", async () => {
    const { h, url } = await start(config("access:\n  dm: open\nlimits:\n  user: 20/10m\n"));
    for (let i = 1; i <= 20; i++) {
      await sendEvent(url, SLACK_SECRET, dm("U0HUMAN", "D0HUMAN", `message ${i}`));
      await flat(h, "D0HUMAN", i, `echo: message ${i}`);
    }
    for (let i = 21; i <= 25; i++) {
      await sendEvent(url, SLACK_SECRET, dm("U0HUMAN", "D0HUMAN", `message ${i}`));
    }
    await flat(h, "D0HUMAN", 21);
    await settle();
    const texts = visibleFlat(h.slack, "D0HUMAN");
    expect(texts).toHaveLength(21);
    expect(texts.slice(0, 20)).toEqual(
      Array.from({ length: 20 }, (_, i) => `echo: message ${i + 1}`),
    );
    expect(texts[20]).toContain("over the limit of 20 messages per 10 minutes for one person");
    expect(h.pipe.fake.requests).toHaveLength(20);
  });

  it("answers a stranger's slash commands in a DM with the pairing code, running none of them", async () => {
    const { h, url } = await start(config());
    const slash = (command: string, text = "") =>
      sendSlashCommand(url, SLACK_SECRET, {
        command,
        text,
        userId: "U0HUMAN",
        channelId: "D0HUMAN",
        channelName: "directmessage",
      });
    const first = await slash("/tools", "off lookup");
    expect(String(first.body?.text)).toMatch(/pairing code is [A-Z2-9]{8}/);
    // Told once why; a second command gets a short answer, not a second code.
    const second = await slash("/new");
    expect(String(second.body?.text)).toBe(
      "I can't take commands from you here; my earlier answer says why.",
    );
    // The owner's own command in their DM runs: the policy is about the person.
    const owner = await sendSlashCommand(url, SLACK_SECRET, {
      command: "/tools",
      userId: "U0ADMIN",
      channelId: "D0ADMIN",
      channelName: "directmessage",
    });
    expect(JSON.stringify(owner.body)).toMatch(/tools available/);
    const { intent } = await h.pipe.app.store.intent.read({
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "D0HUMAN",
      conversation: "D0HUMAN",
    });
    expect(intent.decisions).toEqual({});
    expect(h.pipe.fake.requests).toHaveLength(0);
  });
});
