import { describe, expect, it } from "vitest";
import {
  decideRun,
  type Schedule,
  scheduledEventId,
  scheduledText,
} from "../../src/core/schedules/index.ts";

const base: Schedule = {
  id: "ticks",
  target: { platform: "console", workspace: "local", channel: "t", conversation: "t", kind: "dm" },
  prompt: "Say tick.",
  timing: { kind: "every", everyMs: 1_000 },
  owner: { user: "u" },
  catchUp: "one",
  origin: "config",
};

describe("what a tick job does", () => {
  it("runs an on-time tick for itself alone", () => {
    expect(decideRun(base, { covered: 9_000, runs: 3 }, 10_000, 10_050)).toEqual({
      kind: "run",
      tick: 10_000,
      missed: 0,
      covered: 10_000,
      last: false,
    });
  });

  it("runs a late tick once for every tick missed up to now (catch_up: one)", () => {
    expect(decideRun(base, { covered: 9_000, runs: 3 }, 10_000, 14_200)).toMatchObject({
      kind: "run",
      tick: 14_000,
      missed: 4,
    });
  });

  it("skips a late tick under catch_up: none, covering the ticks it skipped", () => {
    expect(
      decideRun({ ...base, catchUp: "none" }, { covered: 9_000, runs: 3 }, 10_000, 14_200),
    ).toEqual({ kind: "skip", reason: "missed", covered: 14_000 });
  });

  it("skips a tick an earlier run already covered", () => {
    expect(decideRun(base, { covered: 14_000, runs: 4 }, 12_000, 14_500)).toEqual({
      kind: "skip",
      reason: "covered",
      covered: 14_000,
    });
  });

  it("ends at max_runs and past until, and marks the last run", () => {
    expect(decideRun({ ...base, maxRuns: 3 }, { covered: 0, runs: 3 }, 10_000, 10_000)).toEqual({
      kind: "end",
      reason: "max_runs",
    });
    expect(decideRun({ ...base, until: 9_999 }, { covered: 0, runs: 0 }, 10_000, 10_000)).toEqual({
      kind: "end",
      reason: "until",
    });
    expect(
      decideRun({ ...base, maxRuns: 4 }, { covered: 9_000, runs: 3 }, 10_000, 10_000),
    ).toMatchObject({ kind: "run", last: true });
  });

  it("runs a single time once, late or not, unless catch_up is none", () => {
    const once: Schedule = { ...base, timing: { kind: "at", at: 10_000 } };
    expect(decideRun(once, { covered: 0, runs: 0 }, 10_000, 500_000)).toMatchObject({
      kind: "run",
      missed: 0,
      last: true,
    });
    expect(
      decideRun({ ...once, catchUp: "none" }, { covered: 0, runs: 0 }, 10_000, 500_000),
    ).toMatchObject({ kind: "skip", reason: "missed" });
  });
});

describe("the message of a run", () => {
  it("says it is scheduled and how many ticks it stands for", () => {
    expect(scheduledText("Say tick.", { id: "ticks", tick: 0, missed: 0 })).toBe(
      '[Scheduled run of "ticks" for 1970-01-01T00:00:00.000Z.]\nSay tick.',
    );
    expect(scheduledText("Say tick.", { id: "ticks", tick: 0, missed: 3 })).toBe(
      '[Scheduled run of "ticks" for 1970-01-01T00:00:00.000Z. 3 earlier runs were missed while the bot was down; this one run stands for them all.]\nSay tick.',
    );
    expect(scheduledEventId({ id: "ticks", tick: 42 })).toBe("schedule:ticks:42");
  });
});
