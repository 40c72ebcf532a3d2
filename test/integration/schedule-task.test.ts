import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_COMMAND_POLICY } from "../../src/core/commands/index.ts";
import { MAX_SCHEDULES_PER_OWNER } from "../../src/core/schedules/index.ts";
import type { ToolContext } from "../../src/core/tools/tool.ts";
import { Schedules, scheduleQueue } from "../../src/queue/schedules.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { scheduleTaskTool } from "../../src/tools/schedule-task.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const NOW = Date.UTC(2026, 11, 6, 12, 0); // a Sunday, 12:00 UTC
const DM: ToolContext = {
  signal: new AbortController().signal,
  platform: "slack",
  workspace: "T1",
  channel: "D1",
  conversation: "D1",
  user: "U1",
  userName: "ada",
  kind: "dm",
  callKey: "turn-1.call-1",
};
const CHANNEL: ToolContext = { ...DM, channel: "C1", conversation: "C1", kind: "group" };

describe("schedule_task on real Redis and BullMQ", () => {
  let redis: Redis;
  let prefix: string;
  let desk: Schedules;
  const tool = (admins: string[] = []) =>
    scheduleTaskTool({
      desk: () => desk,
      zone: "Europe/Berlin",
      policy: () => ({ ...DEFAULT_COMMAND_POLICY, admins }),
      now: () => NOW,
    });
  const call = async (
    ctx: ToolContext,
    when: string,
    prompt = "Summarise yesterday.",
    admins?: string[],
  ) => String(await tool(admins).execute({ when, prompt }, ctx));

  beforeAll(() => {
    redis = connectRedis();
    prefix = uniquePrefix("schedule-task");
    desk = new Schedules(
      scheduleQueue(redis, prefix),
      new ScheduleStore(redis, new KeyScheme(prefix)),
      () => NOW,
    );
  });
  afterAll(async () => {
    await desk.queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("is deferred, asks first, and has effects", () => {
    expect(tool()).toMatchObject({
      id: "schedule_task",
      defer: true,
      approval: "ask",
      effects: true,
    });
  });

  it("makes a schedule in this conversation as the person, once per call, with the next three runs", async () => {
    const answer = await call(DM, "weekdays 09:00");
    expect(answer).toMatch(/^Scheduled (t[0-9a-f]{8}) in this conversation, running as the person/);
    expect(answer).toContain('When: cron "0 9 * * 1-5" (Europe/Berlin)');
    expect(answer).toContain(
      "Next runs: Mon 2026-12-07 09:00 Europe/Berlin; Tue 2026-12-08 09:00 Europe/Berlin; Wed 2026-12-09 09:00 Europe/Berlin",
    );
    // A resumed turn repeats the call with the same key: still one schedule.
    expect(await call(DM, "weekdays 09:00")).toBe(answer);
    const mine = (await desk.list()).filter((r) => r.schedule.owner.user === "U1");
    expect(mine).toHaveLength(1);
    expect(mine[0]?.schedule).toMatchObject({
      target: { platform: "slack", channel: "D1", conversation: "D1", kind: "dm" },
      owner: { user: "U1", userName: "ada" },
      prompt: "Summarise yesterday.",
      origin: "chat",
    });
    expect(await desk.queue.getJobScheduler(mine[0]?.schedule.id as string)).toBeDefined();
  });

  it("answers a time it cannot read with the part and the forms it takes", async () => {
    expect(await call({ ...DM, callKey: "turn-2.call-1" }, "whenever")).toMatch(
      /^when: "whenever" cannot be used: write a time such as/,
    );
  });

  it("keeps a channel's top level to the config's admins, as /schedule does", async () => {
    const ctx = { ...CHANNEL, callKey: "turn-3.call-1" };
    expect(await call(ctx, "every 2h")).toMatch(
      /^Not scheduled: a schedule that speaks at this channel's top level is a channel-scope change/,
    );
    expect(await call(ctx, "every 2h", "Check the queue.", ["slack:U1"])).toMatch(/^Scheduled t/);
  });

  it(`stops a person at ${MAX_SCHEDULES_PER_OWNER} schedules`, async () => {
    const person = { ...DM, user: "U7" };
    for (let i = 0; i < MAX_SCHEDULES_PER_OWNER; i++) {
      expect(await call({ ...person, callKey: `cap.${i}` }, "every 2h")).toMatch(/^Scheduled/);
    }
    expect(await call({ ...person, callKey: "cap.over" }, "every 2h")).toMatch(
      /^Not scheduled: the person has 20 schedules already/,
    );
  });
});
