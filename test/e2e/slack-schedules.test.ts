import { describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
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

const THREAD = "1700000000.000100";

/** One schedule that ticks every second, run once (`max_runs`) or until it pauses. */
function config(
  id: string,
  target: string,
  maxRuns?: number,
  extra: string[] = [],
): SwitchyardConfig {
  return parseConfig(
    [
      ...extra,
      "schedules:",
      `  - id: ${id}`,
      `    target: { platform: slack, workspace: ${FAKE_SLACK.teamId}, ${target} }`,
      "    prompt: Summarise the deploy queue.",
      '    cron: "* * * * * *"',
      "    owner: U0HUMAN",
      ...(maxRuns !== undefined ? [`    max_runs: ${maxRuns}`] : []),
    ].join("\n"),
    "switchyard.yaml",
  );
}

function scheduleOf(h: SlackHarness, id: string) {
  return new ScheduleStore(h.pipe.app.redis, h.pipe.app.store.keys).get(id);
}

/** The schedule's pause, once the worker made it. */
async function pausedIn(h: SlackHarness, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const paused = (await scheduleOf(h, id))?.paused;
    if (paused) return paused;
    if (Date.now() > deadline) throw new Error(`schedule ${id} was not paused in ${timeoutMs} ms`);
    await settle(50);
  }
}

describe("Slack schedules", () => {
  it("posts a scheduled answer once into the thread its config names", async () => {
    const h = await startHarness({
      config: () => config("queue-check", `channel: C0TEAM, thread: "${THREAD}"`, 1),
    });
    const [answer] = await until(() => {
      const texts = visibleIn(h.slack, THREAD);
      return texts.length > 0 && texts[0]?.includes("Summarise the deploy queue.")
        ? texts
        : undefined;
    });
    expect(answer).toContain('Scheduled run of "queue-check"');
    // More ticks come every second; the schedule made its one run and ended.
    await settle(2_500);
    expect(visibleIn(h.slack, THREAD)).toHaveLength(1);
    expect(h.slack.messages.filter((m) => m.bot_id && m.thread_ts !== THREAD)).toEqual([]);
    expect(h.pipe.fake.requests).toHaveLength(1);
    expect((await scheduleOf(h, "queue-check"))?.ended).toBe("max_runs");
  });

  it("pauses a schedule whose channel was archived and tells its owner once, in a DM", async () => {
    const h = await startHarness({ config: () => config("standup", "channel: C0ARCHIVED") });
    h.slack.channels.set("C0ARCHIVED", {
      name: "old-incidents",
      is_archived: true,
      members: [FAKE_SLACK.botUserId, "U0HUMAN"],
    });
    await pausedIn(h, "standup");
    const notice = await until(() => visibleFlat(h.slack, "D0HUMAN")[0]);
    expect(notice).toBe(
      'Schedule "standup" is paused: the bot can no longer post in its target (Slack: is_archived). It will not run again until it is resumed.',
    );
    const tries = () =>
      h.slack.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0ARCHIVED").length;
    const triedBeforePause = tries();
    // Ticks keep coming every second: none runs, nothing is retried, the owner is told once.
    await settle(2_500);
    expect(tries()).toBe(triedBeforePause);
    const state = await scheduleOf(h, "standup");
    expect(state?.paused?.reason).toBe(
      "the bot can no longer post in its target (Slack: is_archived).",
    );
    expect(state?.runs).toBe(1);
    // What the console's schedules page shows as the last run's outcome.
    expect(state?.outcome?.text).toBe("not delivered: is_archived");
    expect(h.pipe.fake.requests).toHaveLength(1);
    expect(visibleFlat(h.slack, "D0HUMAN")).toHaveLength(1);
  });

  it("ends a turn whose channel was removed from under it once, without retrying its answer", async () => {
    const h = await startHarness();
    h.slack.channels.set("C0LEFT", { name: "left", members: ["U0HUMAN"] });
    const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> hi`, channel: "C0LEFT" });
    await sendEvent(h.events[0] as string, SLACK_SECRET, mention);
    const tries = () =>
      h.slack.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0LEFT").length;
    await until(() => (tries() > 0 && h.pipe.fake.requests.length === 1 ? true : undefined));
    const tried = tries();
    // A retried job would post again within its backoff (500 ms, then 1 s).
    await settle(2_500);
    expect(tries()).toBe(tried);
    expect(h.pipe.fake.requests).toHaveLength(1);
    expect(h.slack.messages.filter((m) => m.bot_id)).toEqual([]);
    expect(
      await h.pipe.app.queue.idle({
        platform: "slack",
        workspace: FAKE_SLACK.teamId,
        channel: "C0LEFT",
        conversation: `C0LEFT:${mention.ts as string}`,
      }),
    ).toBe(true);
  });

  it("pauses a schedule whose owner the access policy no longer lets in, and tells them once, in a DM", async () => {
    // Groups are allowlisted, and the schedule's channel is not on the list.
    const access = ["access:", "  groups: allowlist", "  allow: [slack:C0OPEN]"];
    const h = await startHarness({
      config: () => config("standup", "channel: C0CLOSED", undefined, access),
    });
    const paused = await pausedIn(h, "standup");
    expect(paused.reason).toMatch(
      /^its owner U0HUMAN is not let into this conversation any more \(/,
    );
    const notice = await until(() => visibleFlat(h.slack, "D0HUMAN")[0]);
    expect(notice).toBe(
      `Schedule "standup" is paused: ${paused.reason} It will not run again until it is resumed.`,
    );
    await settle(2_500);
    // Refused at the gate: the model was never asked, and nothing went into the channel.
    expect(h.pipe.fake.requests).toEqual([]);
    expect(
      h.slack.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0CLOSED"),
    ).toEqual([]);
    expect(visibleFlat(h.slack, "D0HUMAN")).toHaveLength(1);
  });
});
