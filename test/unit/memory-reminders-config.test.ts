import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { DEFAULT_MEMORY, memorySection } from "../../src/core/config/memory-section.ts";
import { DEFAULT_REMINDERS, remindersSection } from "../../src/core/config/reminders-section.ts";
import {
  decodeReminder,
  ReminderDataError,
  reminderMessage,
} from "../../src/tools/reminders/index.ts";

function problem(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ZodError) return error.issues.map((i) => i.message).join(" | ");
    throw error;
  }
  return "";
}

describe("the memory: section", () => {
  it("defaults to 100 notes of 500 characters", () => {
    expect(memorySection.parse({})).toEqual(DEFAULT_MEMORY);
    expect(DEFAULT_MEMORY).toEqual({ maxNotes: 100, maxNoteLength: 500 });
    expect(memorySection.parse({ max_notes: 20, max_note_length: 200 })).toEqual({
      maxNotes: 20,
      maxNoteLength: 200,
    });
  });

  it("says what is wrong with a limit", () => {
    expect(problem(() => memorySection.parse({ max_notes: 0 }))).toMatch(/at least 1/);
    expect(problem(() => memorySection.parse({ max_notes: "lots" }))).toBe(
      'expected a whole number of notes, found "lots".',
    );
    expect(problem(() => memorySection.parse({ max_note_length: 2.5 }))).toMatch(/whole number/);
    expect(problem(() => memorySection.parse({ max_note: 5 }))).toBe(
      'unknown key "max_note". The memory section takes max_notes: and max_note_length:.',
    );
  });
});

describe("the reminders: section", () => {
  it("defaults to UTC, a year ahead and 50 pending reminders", () => {
    expect(remindersSection.parse({})).toEqual(DEFAULT_REMINDERS);
    expect(DEFAULT_REMINDERS).toEqual({ timeZone: "UTC", maxHorizonDays: 365, maxPending: 50 });
  });

  it("spells the zone canonically", () => {
    expect(remindersSection.parse({ time_zone: "europe/berlin" }).timeZone).toBe("Europe/Berlin");
  });

  it("says what is wrong with a zone or a limit", () => {
    expect(problem(() => remindersSection.parse({ time_zone: "CEST+1" }))).toBe(
      '"CEST+1" is not an IANA time zone. Use a name such as Europe/Berlin, America/New_York or UTC.',
    );
    expect(problem(() => remindersSection.parse({ max_horizon_days: -3 }))).toMatch(/at least 1/);
    expect(problem(() => remindersSection.parse({ zone: "UTC" }))).toMatch(
      /unknown key "zone". The reminders section takes time_zone:/,
    );
  });

  it("reads any input as a config or a list of problems, never a crash", () => {
    const field = fc.oneof(
      fc.anything(),
      fc.integer({ min: -5, max: 20_000 }),
      fc.constantFrom("UTC", "Europe/Berlin", "Nowhere/Place", ""),
    );
    const shaped = fc.dictionary(
      fc.constantFrom(
        "time_zone",
        "max_horizon_days",
        "max_pending",
        "max_notes",
        "max_note_length",
        "x",
      ),
      field,
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), shaped), (input) => {
        for (const section of [memorySection, remindersSection]) {
          const result = section.safeParse(input);
          if (!result.success) {
            for (const issue of result.error.issues)
              expect(issue.message.length).toBeGreaterThan(10);
          }
        }
      }),
    );
  });
});

describe("reading a stored reminder", () => {
  const valid = {
    id: "r7",
    platform: "slack",
    workspace: "T1",
    channel: "C1",
    conversation: "C1-1700.1",
    thread: "1700.1",
    user: "U1",
    text: "stand-up notes",
    dueAt: 1_800_000_000_000,
    timeZone: "Europe/Berlin",
    createdAt: 1_700_000_000_000,
  };

  it("reads back what was stored", () => {
    expect(decodeReminder(JSON.parse(JSON.stringify(valid)))).toEqual(valid);
  });

  it("reads anything as a reminder or a ReminderDataError naming the field", () => {
    const broken = fc
      .tuple(fc.constantFrom(...Object.keys(valid)), fc.anything())
      .map(([key, value]) => ({ ...valid, [key]: value }));
    fc.assert(
      fc.property(fc.oneof(fc.anything(), broken), (data) => {
        try {
          const reminder = decodeReminder(data);
          expect(reminder.id).toMatch(/^r\d+$/);
        } catch (error) {
          expect(error).toBeInstanceOf(ReminderDataError);
          expect((error as Error).message).toMatch(/^A stored reminder is unreadable: /);
        }
      }),
    );
  });
});

describe("the posted reminder text", () => {
  const base = {
    id: "r1",
    workspace: "W",
    channel: "C",
    conversation: "C",
    text: "stand-up",
    dueAt: 0,
    timeZone: "UTC",
    createdAt: 0,
  };

  it("mentions the person where the platform's plain text can, so they are notified", () => {
    expect(reminderMessage({ ...base, platform: "slack", user: "U0123ABC" })).toBe(
      "⏰ Reminder for <@U0123ABC>: stand-up",
    );
    expect(reminderMessage({ ...base, platform: "discord", user: "123456789012345678" })).toBe(
      "⏰ Reminder for <@123456789012345678>: stand-up",
    );
    expect(reminderMessage({ ...base, platform: "telegram", user: "42" })).toBe(
      "⏰ Reminder for 42: stand-up",
    );
    expect(reminderMessage({ ...base, platform: "console", user: "console-user" })).toBe(
      "⏰ Reminder for console-user: stand-up",
    );
  });
});
