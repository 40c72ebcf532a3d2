import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Schedule } from "../../src/core/schedules/index.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const schedule: Schedule = {
  id: "ticks",
  target: { platform: "console", workspace: "local", channel: "t", conversation: "t", kind: "dm" },
  prompt: "Say tick.",
  timing: { kind: "every", everyMs: 1_000 },
  owner: { user: "u" },
  catchUp: "one",
  origin: "config",
};

describe("schedule records in Redis", () => {
  const redis = connectRedis();
  const prefix = uniquePrefix("schedule-store");
  let store: ScheduleStore;

  beforeAll(() => {
    store = new ScheduleStore(redis, new KeyScheme(prefix));
  });

  afterAll(async () => {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("starts covered at its creation, and keeps its state when defined again unchanged", async () => {
    expect(await store.put(schedule, 5_000)).toBe(true);
    expect(await store.put({ ...schedule, prompt: "Say tock." }, 9_000)).toBe(false);
    const state = await store.get("ticks");
    expect(state).toMatchObject({ covered: 5_000, runs: 0, schedule: { prompt: "Say tock." } });
    expect(await store.put({ ...schedule, timing: { kind: "every", everyMs: 2_000 } }, 9_000)).toBe(
      true,
    );
    expect((await store.get("ticks"))?.covered).toBe(9_000);
  });

  it("claims a tick once: a retried job gets its run again, a racing job is told to decide again", async () => {
    const state = await store.get("ticks");
    if (!state) throw new Error("no schedule");
    const request = {
      jobId: "repeat:ticks:10000",
      coveredRaw: state.coveredRaw,
      covered: 12_000,
      run: { tick: 12_000, missed: 1 },
      now: 12_100,
    };
    expect(await store.claim("ticks", request)).toEqual({ kind: "claimed", runs: 1 });
    expect(await store.claim("ticks", request)).toEqual({ kind: "again", tick: 12_000, missed: 1 });
    expect(
      await store.claim("ticks", { ...request, jobId: "catch-up", coveredRaw: state.coveredRaw }),
    ).toEqual({ kind: "conflict" });
    expect(await store.get("ticks")).toMatchObject({
      covered: 12_000,
      runs: 1,
      lastRun: { at: 12_100, tick: 12_000 },
    });
  });

  it("pauses once with its reason, takes no runs while paused, and resumes covered from then", async () => {
    expect(await store.pause("ticks", "its owner left.", 13_000)).toBe(true);
    expect(await store.pause("ticks", "again.", 13_500)).toBe(false);
    const state = await store.get("ticks");
    expect(state?.paused).toEqual({ reason: "its owner left.", at: 13_000 });
    expect(
      await store.claim("ticks", {
        jobId: "repeat:ticks:14000",
        coveredRaw: state?.coveredRaw ?? "",
        covered: 14_000,
        run: { tick: 14_000, missed: 0 },
        now: 14_000,
      }),
    ).toEqual({ kind: "paused" });
    expect(await store.resume("ticks", 20_000)).toBe(true);
    expect(await store.get("ticks")).toMatchObject({ covered: 20_000, runs: 1 });
    expect((await store.get("ticks"))?.paused).toBeUndefined();
  });

  it("lists, ends and removes", async () => {
    await store.end("ticks", "max_runs");
    expect((await store.list()).map((s) => [s.schedule.id, s.ended])).toEqual([
      ["ticks", "max_runs"],
    ]);
    expect(await store.remove("ticks")).toBe(true);
    expect(await store.get("ticks")).toBeUndefined();
    await store.end("ticks", "until");
    expect(await store.list()).toEqual([]);
  });

  it("records what the last tick came to, and leaves no husk of a removed schedule", async () => {
    await store.put({ ...schedule, id: "outcome" }, 1_000);
    await store.note("outcome", "skipped: refused", 2_000);
    expect((await store.get("outcome"))?.outcome).toEqual({ text: "skipped: refused", at: 2_000 });
    await store.remove("outcome");
    await store.note("outcome", "queued", 3_000);
    expect(await redis.exists(new KeyScheme(prefix).schedules().record("outcome"))).toBe(0);
  });
});
