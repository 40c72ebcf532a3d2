import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_REMINDERS,
  type RemindersConfig,
} from "../../src/core/config/reminders-section.ts";
import { conversationKey } from "../../src/core/conversation.ts";
import type { AnyTool, ToolContext } from "../../src/core/tools/tool.ts";
import { RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import type { DeliveryTarget, Outbound } from "../../src/ports/outbound.ts";
import { keySlot } from "../../src/store/key-slot.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  REMINDER_QUEUE,
  type Reminder,
  ReminderWorker,
  reminderQueue,
  reminderTools,
} from "../../src/tools/reminders/index.ts";
import { moveLegacyReminders } from "../../src/tools/reminders/legacy-queue.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { connectRedis, keysUnder, TOPOLOGY, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("reminders");

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ada: Omit<ToolContext, "signal"> = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "main",
  thread: "t-1",
  user: "console-user",
};
const call = { id: "call_1", type: "function" as const, function: { name: "x", arguments: "{}" } };

/** The posting side of a platform whose acknowledgement gets lost once: the post lands, the worker sees an error. */
class LostAckOutbound implements Outbound {
  readonly maxLength = 40_000;
  readonly canEdit = false;
  readonly attempts: Array<{ target: DeliveryTarget; key: string; mayExist: boolean }> = [];
  constructor(private readonly inner: Outbound) {}
  async post(
    target: DeliveryTarget,
    text: string,
    options: { idempotencyKey: string; mayExist?: boolean },
  ) {
    this.attempts.push({
      target,
      key: options.idempotencyKey,
      mayExist: options.mayExist ?? false,
    });
    const ref = await this.inner.post(target, text, options);
    if (this.attempts.length === 1)
      throw new Error("connection reset before the platform answered");
    return ref;
  }
  edit = (target: DeliveryTarget, ref: string, text: string) => this.inner.edit(target, ref, text);
  typing = async () => {};
}

function setup(options: { now?: () => number; defaults?: Partial<RemindersConfig> } = {}) {
  const queue = reminderQueue(db.redis, db.prefix);
  closers.push(() => queue.close());
  const outbox = new RedisOutbox(db.redis, db.prefix, conversationKey);
  const [set, list, cancel] = reminderTools({
    queue,
    redis: db.redis,
    prefix: db.prefix,
    ...(options.now ? { now: options.now } : {}),
    defaults: { ...DEFAULT_REMINDERS, ...options.defaults },
    retry: { attempts: 3, backoffMs: 50 },
  }) as [AnyTool, AnyTool, AnyTool];
  const run = async (tool: AnyTool, args: unknown, ctx: Omit<ToolContext, "signal">) =>
    (await runTool(tool, args, call, ctx, { timeoutMs: 5_000 })).output;
  /** A worker as a worker process runs one, on a BullMQ connection of its own. */
  const startWorker = (outbounds: Record<string, Outbound> = { console: outbox }) => {
    const connection = connectRedis({ maxRetriesPerRequest: null });
    const worker = new ReminderWorker({
      connection,
      redis: db.redis,
      prefix: db.prefix,
      outbounds,
    });
    worker.start();
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        await worker.worker.waitUntilReady().catch(() => {});
        await worker.close();
        await connection.quit();
      })();
      return stopping;
    };
    closers.push(stop);
    return { worker, stop };
  };
  return {
    queue,
    outbox,
    startWorker,
    set: (args: unknown, ctx = ada) => run(set, args, ctx),
    list: (ctx = ada) => run(list, {}, ctx),
    cancel: (id: string, ctx = ada) => run(cancel, { id }, ctx),
  };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("reminders through BullMQ delayed jobs", () => {
  it("fires once into the console channel even when the first delivery's acknowledgement is lost", async () => {
    const r = setup();
    const answer = await r.set({ text: "stretch your legs", in: "1s" });
    expect(answer).toMatch(
      /^Reminder r1 set for .* UTC, in 1s: "stretch your legs"\. It will be posted in this thread; cancel_reminder with id r1 cancels it\.$/,
    );
    // No worker runs yet: the reminder waits as a delayed job, whatever the time.
    expect(await r.queue.getJobState("r1")).toBe("delayed");
    const flaky = new LostAckOutbound(r.outbox);
    r.startWorker({ console: flaky });
    await until(
      async () => (await r.list()).startsWith("You have no pending"),
      "the reminder fired",
    );

    const entries = await r.outbox.read("0", 1);
    expect(entries).toEqual([
      expect.objectContaining({
        kind: "post",
        conversation: conversationKey(ada),
        text: "⏰ Reminder for console-user: stretch your legs",
        key: "r1",
      }),
    ]);
    expect(flaky.attempts.map((a) => [a.key, a.mayExist, a.target.thread])).toEqual([
      ["r1", false, "t-1"],
      ["r1", true, "t-1"],
    ]);
    expect(await r.queue.getJob("r1")).toBeUndefined();
  });

  it("sets a reminder once when a resumed turn repeats the same call", async () => {
    // The resumed turn repeats the call a few seconds later: it is told what was set, in the same words.
    let clock = Date.UTC(2026, 11, 6, 3, 50, 7, 900);
    const r = setup({ now: () => clock });
    const call = { ...ada, callKey: "turn-7.call_1" };
    const first = await r.set({ text: "water the plants", in: "2h" }, call);
    clock += 5_000;
    const again = await r.set({ text: "water the plants", in: "2h" }, call);
    expect(again).toBe(first);
    expect((await r.list()).match(/water the plants/g)).toHaveLength(1);
    expect(await r.queue.getJobCounts("delayed")).toEqual({ delayed: 1 });
    // A different call (a new request) is a new reminder.
    await r.set({ text: "water the plants", in: "2h" }, { ...ada, callKey: "turn-8.call_1" });
    expect((await r.list()).match(/water the plants/g)).toHaveLength(2);
  });

  it("cancels a reminder before it fires: the job is gone and the list is empty", async () => {
    const r = setup();
    await r.set({ text: "water the plants", in: "1h" });
    expect(await r.cancel("r1", { ...ada, user: "someone-else" })).toBe(
      'You have no pending reminder "r1" in this workspace. Call list_reminders to see your reminders and their ids.',
    );
    expect(await r.queue.getJobState("r1")).toBe("delayed");
    expect(await r.cancel("R1")).toMatch(
      /^Cancelled reminder r1 \(was due .*\): "water the plants"\.$/,
    );
    expect(await r.queue.getJob("r1")).toBeUndefined();
    expect(await r.list()).toBe("You have no pending reminders in this workspace.");
    expect(await r.cancel("r1")).toMatch(/^You have no pending reminder "r1"/);
  });

  it("survives its worker stopping: the job stays delayed and a new worker fires it", async () => {
    const r = setup();
    const first = r.startWorker();
    await first.worker.worker.waitUntilReady();
    await r.set({ text: "take the cake out", in: "1h" });
    await first.stop();
    expect(await r.queue.getJobState("r1")).toBe("delayed");

    // The hour passes while no worker runs (what a restart over the due time looks like).
    const job = await r.queue.getJob("r1");
    await job?.changeDelay(0);
    expect(await r.queue.getJobState("r1")).toBe("delayed");
    expect(await r.outbox.read("0", 1)).toEqual([]);

    r.startWorker();
    await until(async () => (await r.outbox.read("0", 1)).length > 0, "the new worker posted");
    expect((await r.outbox.read("0", 1)).map((e) => e.text)).toEqual([
      "⏰ Reminder for console-user: take the cake out",
    ]);
    await until(
      async () => (await r.list()).startsWith("You have no pending"),
      "the index emptied",
    );
  });

  it("lists only the person's own reminders in this workspace, soonest first", async () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    const r = setup({ now: () => now, defaults: { timeZone: "Europe/Berlin" } });
    await r.set({ text: "later", in: "3h" });
    await r.set({ text: "sooner", in: "1h" }, { ...ada, channel: "other", conversation: "other" });
    await r.set({ text: "bob's", in: "2h" }, { ...ada, user: "bob" });
    await r.set({ text: "elsewhere", in: "2h" }, { ...ada, workspace: "another" });
    expect(await r.list()).toBe(
      [
        "2 pending reminders:",
        '- r2: Tue 2030-01-01 02:00 Europe/Berlin (UTC+01:00) = 2030-01-01 01:00 UTC, in 1h (in another conversation): "sooner"',
        '- r1: Tue 2030-01-01 04:00 Europe/Berlin (UTC+01:00) = 2030-01-01 03:00 UTC, in 3h: "later"',
      ].join("\n"),
    );
    expect(await r.list({ ...ada, user: "bob" })).toMatch(/^1 pending reminder:\n- r3: .*"bob's"$/);
    expect(await r.list({ ...ada, workspace: "another" })).toMatch(
      /^1 pending reminder:\n- r4: .*"elsewhere"$/,
    );
  });

  it("answers with the resolved time in the person's zone and UTC, and says when daylight saving moved it", async () => {
    const r = setup({ now: () => Date.parse("2026-03-01T00:00:00Z") });
    expect(
      await r.set({ text: "call mum", at: "2026-03-29T02:30", time_zone: "Europe/Berlin" }),
    ).toBe(
      'Reminder r1 set for Sun 2026-03-29 03:30 Europe/Berlin (UTC+02:00) = 2026-03-29 01:30 UTC, in 28d1h30m: "call mum". Note: 2026-03-29 02:30 does not exist in Europe/Berlin (the clocks skip that hour for daylight saving time), so it is set for 2026-03-29 03:30, the same time after the jump. It will be posted in this thread; cancel_reminder with id r1 cancels it.',
    );
    const job = await r.queue.getJob("r1");
    if (!job) throw new Error("the reminder's job is missing");
    expect((job.data as Reminder).dueAt).toBe(Date.parse("2026-03-29T01:30:00Z"));
    // The job fires at its timestamp plus its delay: the due time, measured on the tools' clock.
    expect(job.timestamp + job.delay).toBe(Date.parse("2026-03-29T01:30:00Z"));
  });

  it("refuses bad times with a reason and schedules nothing", async () => {
    const r = setup({
      now: () => Date.parse("2026-06-01T12:00:00Z"),
      defaults: { maxHorizonDays: 30 },
    });
    expect(await r.set({ text: "x", in: "2 fortnights" })).toMatch(
      /^"2 fortnights" has the unknown unit "fortnights"/,
    );
    expect(await r.set({ text: "x", at: "2026-05-01T09:00" })).toMatch(
      /^A reminder needs a time in the future/,
    );
    expect(await r.set({ text: "x", in: "31d" })).toMatch(/reminders can be set at most 30d ahead/);
    expect(await r.set({ text: "x", at: "2026-06-02T09:00", time_zone: "Berlin" })).toMatch(
      /^"Berlin" is not an IANA time zone/,
    );
    expect(await r.set({ text: "x".repeat(1001), in: "1h" })).toMatch(
      /may be at most 1000\. Shorten it/,
    );
    expect(await r.set({ text: "x" })).toMatch(/^Say when:/);
    expect(await r.queue.count()).toBe(0);
    expect(await r.list()).toBe("You have no pending reminders in this workspace.");
  });

  it("never lets racing set_reminder calls exceed the pending cap", async () => {
    const r = setup({ defaults: { maxPending: 3 } });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => r.set({ text: `task ${i}`, in: "1h" })),
    );
    expect(answers.filter((a) => a.startsWith("Reminder r"))).toHaveLength(3);
    for (const refusal of answers.filter((a) => !a.startsWith("Reminder r"))) {
      expect(refusal).toMatch(
        /^You have 3 pending reminders in this workspace, the most allowed\. Nothing was set\./,
      );
    }
    expect(await r.queue.getDelayedCount()).toBe(3);
  });

  it("drops a reminder whose platform no worker can post to, after its retries, from the list", async () => {
    const r = setup();
    const slack = { ...ada, platform: "slack", workspace: "T1", user: "U1" };
    await r.set({ text: "never delivered", in: "1s" }, slack);
    r.startWorker();
    await until(async () => (await r.queue.getJobState("r1")) === "failed", "the job gave up");
    const job = await r.queue.getJob("r1");
    expect(job?.attemptsMade).toBe(3);
    expect(job?.failedReason).toMatch(/^No outbound for platform "slack" in this worker/);
    await until(
      async () => (await r.list(slack)).startsWith("You have no pending"),
      "it left the list",
    );
    expect(await r.outbox.read("0", 1)).toEqual([]);
  });

  it("keeps its queue in one hash slot of its own, so it runs on a Redis Cluster", async () => {
    const r = setup();
    await r.set({ text: "x", in: "1h" });
    const prefix = new KeyScheme(db.prefix).reminderQueuePrefix();
    const direct = new Queue(REMINDER_QUEUE, { connection: db.redis, prefix });
    closers.push(() => direct.close());
    expect(await direct.getJobState("r1")).toBe("delayed");
    const bullKeys = (await keysUnder(db.redis, db.prefix)).filter((key) => key.startsWith(prefix));
    expect(bullKeys.length).toBeGreaterThan(1);
    expect(new Set(bullKeys.map(keySlot)).size).toBe(1);
  });

  it("moves reminders an earlier version queued under <prefix>:bull and fires them when due (a cluster never had that queue)", async () => {
    if (TOPOLOGY === "cluster") {
      // The old prefix's keys span slots, so no deployment can have it on a cluster: nothing is tried.
      const warnings: string[] = [];
      const moved = await moveLegacyReminders(db.redis, db.prefix, {
        warn: (message) => void warnings.push(message),
      });
      expect([moved, warnings]).toEqual([0, []]);
      return;
    }
    const r = setup();
    const now = Date.now();
    const reminder = (id: string, text: string, dueAt: number): Reminder => ({
      id,
      platform: "console",
      workspace: "local",
      channel: "terminal",
      conversation: "main",
      user: "console-user",
      text,
      dueAt,
      timeZone: "UTC",
      createdAt: now,
    });
    // What the version before hash-tagged queues left behind: delayed jobs under <prefix>:bull.
    const old = new Queue<Reminder>(REMINDER_QUEUE, {
      connection: db.redis,
      prefix: `${db.prefix}:bull`,
    });
    closers.push(() => old.close());
    const soon = reminder("r1", "stand up", now + 1_000);
    const later = reminder("r2", "renew the domain", now + 30 * 24 * 3_600_000);
    for (const item of [soon, later]) {
      await old.add("reminder", item, {
        jobId: item.id,
        delay: item.dueAt - now,
        attempts: 8,
      });
    }
    r.startWorker();
    await until(async () => (await r.outbox.read("0", 5)).length > 0, "the moved reminder fired");
    expect((await r.outbox.read("0", 5)).map((e) => e.text)).toEqual([
      "⏰ Reminder for console-user: stand up",
    ]);
    // The far one waits in the new queue, due when it was due, and the old queue is empty.
    const moved = await r.queue.getJob("r2");
    expect(await r.queue.getJobState("r2")).toBe("delayed");
    expect((moved?.timestamp ?? 0) + (moved?.delay ?? 0)).toBeGreaterThanOrEqual(
      later.dueAt - 5_000,
    );
    expect((moved?.timestamp ?? 0) + (moved?.delay ?? 0)).toBeLessThanOrEqual(later.dueAt + 5_000);
    expect(moved?.opts.attempts).toBe(8);
    expect(await old.getJobCounts("delayed", "wait")).toEqual({ delayed: 0, wait: 0 });
  });
});
