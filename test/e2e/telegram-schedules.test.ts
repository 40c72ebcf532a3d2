import { describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ADA, ALICE, BOT, TEAM, type TelegramSetup, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const { start } = useTelegram();

/** A group the bot was kicked from. */
const GONE = -1009876543210;

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One schedule that ticks every second, run once (`max_runs`) or until it pauses. */
function config(id: string, target: string, maxRuns?: number): SwitchyardConfig {
  return parseConfig(
    [
      "schedules:",
      `  - id: ${id}`,
      `    target: { platform: telegram, ${target} }`,
      "    prompt: Summarise the deploy queue.",
      '    cron: "* * * * * *"',
      `    owner: "${ALICE.id}"`,
      ...(maxRuns !== undefined ? [`    max_runs: ${maxRuns}`] : []),
    ].join("\n"),
    "switchyard.yaml",
  );
}

function scheduleOf(s: TelegramSetup, id: string) {
  return new ScheduleStore(s.pipe.app.redis, s.pipe.app.store.keys).get(id);
}

async function pausedIn(s: TelegramSetup, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const paused = (await scheduleOf(s, id))?.paused;
    if (paused) return paused;
    if (Date.now() > deadline) throw new Error(`schedule ${id} was not paused in ${timeoutMs} ms`);
    await settle(50);
  }
}

describe("Telegram schedules", () => {
  it("posts a scheduled answer once into the forum topic its config names", async () => {
    const telegram = await startFakeTelegram();
    telegram.addChat({
      id: TEAM,
      type: "supergroup",
      title: "Team",
      is_forum: true,
      admins: [ADA.id],
    });
    const topic = telegram.createTopic(TEAM, "Deploys", ADA);
    const cfg = config(
      "queue-check",
      `workspace: "${TEAM}", channel: "${TEAM}", thread: "${topic}"`,
      1,
    );
    const s = await start({ telegram, config: () => cfg });
    const [answer] = await until(() => {
      const texts = s.telegram.botMessages(TEAM, topic).map((m) => m.text ?? "");
      return texts.length > 0 ? texts : undefined;
    });
    expect(answer).toContain('Scheduled run of "queue-check"');
    expect(answer).toContain("Summarise the deploy queue.");
    await settle(2_500);
    expect(s.telegram.botMessages(TEAM, topic)).toHaveLength(1);
    expect(s.telegram.botMessages(TEAM).filter((m) => m.message_thread_id !== topic)).toEqual([]);
    expect(s.pipe.fake.requests).toHaveLength(1);
    expect((await scheduleOf(s, "queue-check"))?.ended).toBe("max_runs");
  });

  it("pauses a schedule whose group kicked the bot and tells its owner once, in a DM", async () => {
    const telegram = await startFakeTelegram();
    telegram.addChat({ id: GONE, type: "supergroup", title: "Old team", gone: [BOT.id] });
    const cfg = config("standup", `workspace: "${GONE}", channel: "${GONE}"`);
    const s = await start({ telegram, config: () => cfg });
    await pausedIn(s, "standup");
    const notice = await until(() => s.telegram.botMessages(ALICE.id)[0]?.text);
    expect(notice).toBe(
      'Schedule "standup" is paused: the bot can no longer post in its target (Telegram: Forbidden: bot was kicked from the group chat). It will not run again until it is resumed.',
    );
    const tries = () =>
      s.telegram.callsTo("sendMessage").filter((c) => Number(c.params.chat_id) === GONE).length;
    const triedBeforePause = tries();
    // Ticks keep coming every second: none runs, nothing is retried, the owner is told once.
    await settle(2_500);
    expect(tries()).toBe(triedBeforePause);
    const state = await scheduleOf(s, "standup");
    expect(state?.paused?.reason).toBe(
      "the bot can no longer post in its target (Telegram: Forbidden: bot was kicked from the group chat).",
    );
    expect(state?.runs).toBe(1);
    expect(s.pipe.fake.requests).toHaveLength(1);
    expect(s.telegram.botMessages(ALICE.id)).toHaveLength(1);
  });
});
