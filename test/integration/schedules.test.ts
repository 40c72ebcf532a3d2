import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConversationAddress, conversationKey } from "../../src/core/conversation.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";
import { firstPosts, startWorkerProcess } from "../support/workers.ts";

/** A tick every two seconds: fast enough to see several, slow enough for a turn to end between them. */
const EVERY_TWO_SECONDS = "*/2 * * * * *";

const ticks: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "ticks",
};
const crashing: ConversationAddress = { ...ticks, conversation: "crash" };

const CONFIG = `access:
  dm: open
schedules:
  - id: ticks
    target: { platform: console, workspace: local, channel: terminal, thread: ticks, dm: true }
    prompt: Say tick.
    cron: "${EVERY_TWO_SECONDS}"
    owner: u
  - id: crash
    target: { platform: console, workspace: local, channel: terminal, thread: crash, dm: true }
    prompt: CRASH what time is it?
    cron: "${EVERY_TWO_SECONDS}"
    owner: u
    max_runs: 1
`;

/** A run as the model read it: the tick it was for and the ticks it stands for. */
interface SeenRun {
  readonly tick: number;
  readonly missed: number;
}

/** The scheduled runs in a conversation's history, in order. */
function runsIn(history: readonly { role: string; content?: unknown }[], id: string): SeenRun[] {
  const runs: SeenRun[] = [];
  for (const message of history) {
    if (message.role !== "user" || typeof message.content !== "string") continue;
    for (const found of message.content.matchAll(
      /\[Scheduled run of "([^"]+)" for ([^.]+\.\d+Z)\.(?: (\d+) earlier runs? w(?:as|ere) missed)?/g,
    )) {
      if (found[1] !== id) continue;
      runs.push({ tick: Date.parse(found[2] as string), missed: Number(found[3] ?? 0) });
    }
  }
  return runs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(100);
  }
}

describe("schedules on two worker processes", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  let hungOnce = false;
  let afterTool = 0;

  beforeAll(async () => {
    const responder = (request: RecordedRequest) => {
      const messages = request.body.messages as { role: string; content: unknown }[];
      const crashTurn = messages.some(
        (m) => typeof m.content === "string" && m.content.includes("CRASH what time"),
      );
      if (!crashTurn) return { content: "tick" };
      if (messages.at(-1)?.role === "user") {
        return {
          toolCalls: [{ id: "call_time", name: "current_time", arguments: { timeZone: "UTC" } }],
        };
      }
      afterTool++;
      if (!hungOnce) {
        hungOnce = true;
        return { content: "too late", delayMs: 60_000 };
      }
      return { content: "It is time." };
    };
    fake = await startFakeOpenAI({ responder });
    const dir = mkdtempSync(join(tmpdir(), "sy-schedules-"));
    const file = join(dir, "switchyard.yaml");
    writeFileSync(file, CONFIG);
    crash = await startCrashWorkers(fake, uniquePrefix("schedules"), { SWITCHYARD_CONFIG: file });
  }, 200_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
  });

  it("fires each tick once across both workers, each run its own turn", async () => {
    const { store } = crash;
    const runs = await until(async () => {
      const seen = runsIn(await store.history.load(ticks), "ticks");
      return seen.length >= 4 ? seen : undefined;
    });
    const ticksSeen = runs.map((r) => r.tick);
    expect(new Set(ticksSeen).size).toBe(ticksSeen.length);
    for (const [i, tick] of ticksSeen.entries()) {
      expect(tick % 2_000).toBe(0);
      if (i > 0) expect(tick).toBeGreaterThan(ticksSeen[i - 1] as number);
    }
    const state = await new ScheduleStore(crash.redis, store.keys).get("ticks");
    expect(state?.runs).toBeGreaterThanOrEqual(runs.length);
  }, 120_000);

  it("resumes a scheduled turn whose worker was killed, with one answer", async () => {
    const { redis, prefix, store } = crash;
    await until(async () => (afterTool >= 1 ? true : undefined));
    await crash.killLeaseHolder(crashing);
    const answered = await until(async () => {
      const posts = (await firstPosts(redis, prefix, 100)).filter(
        (p) => p.conversation === conversationKey(crashing),
      );
      return posts.some((p) => p.text === "It is time.") ? posts : undefined;
    });
    await sleep(2_000);
    const posts = (await firstPosts(redis, prefix, 100)).filter(
      (p) => p.conversation === conversationKey(crashing),
    );
    expect(answered.length).toBeGreaterThan(0);
    expect(posts.map((p) => p.text)).toEqual(["It is time."]);
    // max_runs: 1 — one run, and the schedule ended.
    expect(runsIn(await store.history.load(crashing), "crash")).toHaveLength(1);
    const state = await new ScheduleStore(redis, store.keys).get("crash");
    expect(state?.runs).toBe(1);
    expect(state?.ended).toBe("max_runs");
  }, 120_000);

  it("runs once for the ticks missed during a full stop (catch_up: one)", async () => {
    const { store, workers } = crash;
    await Promise.all(workers.map((w) => w.stop("SIGTERM")));
    const before = runsIn(await store.history.load(ticks), "ticks");
    const stoppedAt = Date.now();
    await sleep(7_000);
    const restartedAt = Date.now();
    const restarted = await startWorkerProcess(crash.env);
    workers.splice(0, workers.length, restarted);
    // A tick claimed before the stop may still have its turn to run (a loaded machine stops
    // between the claim and the turn): that is an earlier tick's run, not the outage's.
    const after = await until(async () => {
      const seen = runsIn(await store.history.load(ticks), "ticks");
      const late = seen.slice(before.length).filter((r) => r.tick > stoppedAt);
      return late.length > 0 ? late : undefined;
    });
    const first = after[0] as SeenRun;
    // The ticks of the outage (at least three in seven seconds) came to this one run.
    expect(first.missed).toBeGreaterThanOrEqual(2);
    // It stands for the latest tick when it ran: ticks are two seconds apart, and it ran after
    // the restart began (stoppedAt + 6 s assumed a start slower than a second: from the build, a
    // worker is ready in about half of one, before the outage's tick at 7.x s has come).
    expect(first.tick).toBeGreaterThan(restartedAt - 2_000);
    // The scheduler keeps one job ahead: a run for any outage tick would be due at the restart,
    // before the next tick's, and a conversation's turns run in order. So once the next tick
    // has run, every outage run that was ever going to happen is in the history.
    const all = await until(async () => {
      const seen = runsIn(await store.history.load(ticks), "ticks");
      return seen.some((r) => r.tick > first.tick) ? seen : undefined;
    });
    const outage = all.filter((r) => r.tick > stoppedAt && r.tick < first.tick);
    expect(outage).toEqual([]);
    expect(all.slice(before.length).filter((r) => r.missed > 0).length).toBe(1);
  }, 200_000);
});
