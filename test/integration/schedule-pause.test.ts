import { afterAll, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import type { Schedule } from "../../src/core/schedules/index.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { pauseSchedule } from "../../src/queue/schedule-pause.ts";
import { type ScheduleGate, ScheduleWorker } from "../../src/queue/schedule-worker.ts";
import { Schedules, scheduleQueue } from "../../src/queue/schedules.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const schedule: Schedule = {
  id: "every-second",
  target: {
    platform: "slack",
    workspace: "T1",
    channel: "C1",
    conversation: "1700.1",
    thread: "1700.1",
    kind: "group",
  },
  prompt: "Say tick.",
  timing: { kind: "cron", pattern: "* * * * * *", tz: "UTC" },
  owner: { user: "U1" },
  catchUp: "one",
  origin: "chat",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a schedule whose owner is no longer let in", () => {
  const redis = connectRedis({ maxRetriesPerRequest: null });
  const workerConnection = connectRedis({ maxRetriesPerRequest: null });
  const prefix = uniquePrefix("schedule-pause");
  const keys = new KeyScheme(prefix);
  const schedules = new Schedules(scheduleQueue(redis, prefix), new ScheduleStore(redis, keys));
  const queue = new ConversationQueue(new Inbox(redis, keys), { prefix });
  const outbound = new RecordingOutbound();
  const asked: InboundMessage[] = [];
  const gate: ScheduleGate = async (message) => {
    asked.push(message);
    return { kind: "refused", pause: true, reason: "its owner U1 left the allowlist." };
  };
  const worker = new ScheduleWorker({
    connection: workerConnection,
    prefix,
    schedules,
    enqueue: queue,
    gate,
    outbounds: { slack: outbound },
  });

  afterAll(async () => {
    await worker.close();
    await schedules.queue.close();
    await queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    workerConnection.disconnect();
  });

  it("is paused with the reason, the owner told once in a DM, and nothing queued", async () => {
    await schedules.define(schedule);
    worker.start();
    const deadline = Date.now() + 20_000;
    while (asked.length === 0 && Date.now() < deadline) await sleep(50);
    // Ticks keep coming every second; a paused schedule takes none of them.
    await sleep(3_000);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      user: "U1",
      kind: "group",
      thread: "1700.1",
      scheduled: { id: "every-second", missed: 0 },
    });
    expect(asked[0]?.eventId).toBe(`schedule:every-second:${asked[0]?.scheduled?.tick}`);
    const state = await schedules.store.get("every-second");
    expect(state?.paused?.reason).toBe("its owner U1 left the allowlist.");
    expect(state?.runs).toBe(1);
    // Nothing in the target: the owner hears it alone, in their DM with the bot.
    expect(outbound.calls.filter((c) => c.kind === "post")).toEqual([]);
    const told = outbound.calls.filter((c) => c.kind === "direct");
    expect(told.map((p) => [p.text, p.target.workspace, p.target.channel])).toEqual([
      [
        'Schedule "every-second" is paused: its owner U1 left the allowlist. It will not run again until it is resumed.',
        "T1",
        "U1",
      ],
    ]);
    expect(await queue.idle(schedule.target)).toBe(true);
  }, 40_000);
});

describe("telling a paused schedule's owner", () => {
  const redis = connectRedis({ maxRetriesPerRequest: null });
  const prefix = uniquePrefix("schedule-tell");
  const schedules = new Schedules(
    scheduleQueue(redis, prefix),
    new ScheduleStore(redis, new KeyScheme(prefix)),
  );

  afterAll(async () => {
    await schedules.queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("logs the notice with a warning where the platform cannot write to them first, once", async () => {
    await schedules.define({ ...schedule, id: "no-dm" });
    const recording = new RecordingOutbound();
    // A platform whose outbound has no postDirect: it cannot open a DM with a person.
    const outbound = {
      maxLength: recording.maxLength,
      canEdit: recording.canEdit,
      post: recording.post.bind(recording),
      edit: recording.edit.bind(recording),
      typing: recording.typing.bind(recording),
    };
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      warn: (message: string, fields?: Record<string, unknown>) => {
        warnings.push({ message, ...(fields ? { fields } : {}) });
      },
    };
    const env = { schedules, outbounds: { slack: outbound }, logger };
    const state = await schedules.store.get("no-dm");
    const target = state?.schedule ?? { ...schedule, id: "no-dm" };
    expect(await pauseSchedule(env, target, "its target is gone.")).toBe(true);
    expect(await pauseSchedule(env, target, "its target is gone.")).toBe(false);
    expect(recording.calls).toEqual([]);
    const untold = warnings.filter((w) => w.message.includes("were not told"));
    expect(untold).toHaveLength(1);
    expect(untold[0]?.fields).toMatchObject({
      schedule: "no-dm",
      owner: "U1",
      notice:
        'Schedule "no-dm" is paused: its target is gone. It will not run again until it is resumed.',
    });
    expect((await schedules.store.get("no-dm"))?.paused?.reason).toBe("its target is gone.");
  });
});
