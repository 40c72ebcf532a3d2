import { afterAll, describe, expect, it } from "vitest";
import type { Schedule } from "../../src/core/schedules/index.ts";
import { onceJobId, Schedules, scheduleQueue } from "../../src/queue/schedules.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const base: Schedule = {
  id: "hourly",
  target: { platform: "console", workspace: "local", channel: "t", conversation: "t", kind: "dm" },
  prompt: "Say tick.",
  timing: { kind: "cron", pattern: "0 * * * *", tz: "UTC" },
  owner: { user: "u" },
  catchUp: "one",
  origin: "config",
};

describe("schedules as BullMQ job schedulers", () => {
  const redis = connectRedis({ maxRetriesPerRequest: null });
  const prefix = uniquePrefix("schedule-sync");
  const queue = scheduleQueue(redis, prefix);
  const schedules = new Schedules(queue, new ScheduleStore(redis, new KeyScheme(prefix)));

  afterAll(async () => {
    await queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("makes one job scheduler, and leaves its waiting tick alone when synced again", async () => {
    await schedules.sync([base]);
    const first = await queue.getJobScheduler("hourly");
    expect(first).toMatchObject({ pattern: "0 * * * *", tz: "UTC" });
    const delayed = await queue.getDelayed();
    expect(delayed.map((j) => j.id)).toEqual([`repeat:hourly:${first?.next}`]);
    // A second worker starting (or this one restarting) syncs the same config.
    await schedules.sync([base]);
    expect((await queue.getDelayed()).map((j) => j.id)).toEqual(delayed.map((j) => j.id));
  });

  it("starts an interval one interval from now, and a single time as one delayed job", async () => {
    const before = Date.now();
    await schedules.define({ ...base, id: "poll", timing: { kind: "every", everyMs: 3_600_000 } });
    const poll = await queue.getJobScheduler("poll");
    expect(poll?.every).toBe(3_600_000);
    expect(poll?.next).toBeGreaterThanOrEqual(before + 3_600_000);
    const at = Date.now() + 86_400_000;
    await schedules.define({ ...base, id: "launch", timing: { kind: "at", at } });
    const job = await queue.getJob(onceJobId("launch"));
    expect(job?.data).toEqual({ id: "launch", tick: at });
  });

  it("removes what the config no longer has, and its scheduler", async () => {
    await schedules.sync([base]);
    expect((await schedules.list()).map((s) => s.schedule.id)).toEqual(["hourly"]);
    expect(await queue.getJobScheduler("poll")).toBeUndefined();
    expect(await queue.getJob(onceJobId("launch"))).toBeUndefined();
  });
});
