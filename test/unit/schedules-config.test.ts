import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/config/errors.ts";
import { parseConfig } from "../../src/platforms/config.ts";

const FILE = "switchyard.yaml";

function loadError(text: string): string {
  try {
    parseConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return "";
}

const ENTRY = `schedules:
  - id: standup
    target: { platform: slack, workspace: T1, channel: C1 }
    prompt: Summarise yesterday.
    owner: U1
`;

describe("the schedules: section", () => {
  it("is empty by default", () => {
    expect(parseConfig("", FILE).schedules).toEqual([]);
  });

  it("reads a cron schedule in its zone, catching up once by default", () => {
    const [schedule] = parseConfig(
      `${ENTRY}    cron: "0 9 * * 1-5"\n    tz: europe/berlin\n`,
      FILE,
    ).schedules;
    expect(schedule).toEqual({
      id: "standup",
      target: {
        platform: "slack",
        workspace: "T1",
        channel: "C1",
        conversation: "C1",
        kind: "group",
      },
      prompt: "Summarise yesterday.",
      timing: { kind: "cron", pattern: "0 9 * * 1-5", tz: "Europe/Berlin" },
      owner: { user: "U1" },
      catchUp: "one",
      origin: "config",
    });
  });

  it("reads an interval, a thread, max_runs, until and catch_up", () => {
    const text = `schedules:
  - id: poll
    target: { platform: slack, workspace: T1, channel: C1, thread: "1700.1" }
    prompt: Check the queue.
    every: 2h
    owner: U1
    max_runs: 3
    until: 2027-01-31T09:00Z
    catch_up: none
`;
    const [schedule] = parseConfig(text, FILE).schedules;
    expect(schedule).toMatchObject({
      target: { conversation: "1700.1", thread: "1700.1" },
      timing: { kind: "every", everyMs: 7_200_000 },
      maxRuns: 3,
      until: Date.UTC(2027, 0, 31, 9),
      catchUp: "none",
    });
  });

  it("names the key and the fix for a bad pattern, zone or interval", () => {
    expect(loadError(`${ENTRY}    cron: "0 9 * *"\n`)).toMatch(
      /^switchyard\.yaml:\d+: schedules\[0\]\.cron: "0 9 \* \*" cannot be used: write five fields/,
    );
    expect(loadError(`${ENTRY}    cron: "0 9 * * *"\n    tz: Mars/Base\n`)).toMatch(
      /schedules\[0\]\.tz: "Mars\/Base" cannot be used: name an IANA time zone/,
    );
    expect(loadError(`${ENTRY}    every: 2 hours\n`)).toMatch(
      /schedules\[0\]\.every: "2 hours" cannot be used: write an interval/,
    );
  });

  it("wants exactly one timing", () => {
    expect(loadError(ENTRY)).toMatch(/schedules\[0\]: has no timing\. Give one of cron:/);
    expect(loadError(`${ENTRY}    every: 2h\n    at: 2027-01-01T09:00Z\n`)).toMatch(
      /has every: and at:\. Give exactly one timing/,
    );
  });

  it("wants a zone on a single time, and ids of their own", () => {
    expect(loadError(`${ENTRY}    at: "2027-01-01T09:00"\n`)).toMatch(
      /schedules\[0\]\.at: "2027-01-01T09:00" is not a date and time with its zone\. Write at: 2027-01-31T09:00Z/,
    );
    expect(
      loadError(`${ENTRY}    every: 1h\n${ENTRY.replace("schedules:\n", "")}    every: 2h\n`),
    ).toMatch(/schedules\[1\]\.id: "standup" is the id of an earlier schedule/);
  });

  it("names an unknown key and what a schedule takes", () => {
    expect(loadError(`${ENTRY}    every: 1h\n    cath_up: one\n`)).toMatch(
      /unknown key "cath_up"\. A schedule takes id:, target:, prompt:/,
    );
  });
});
