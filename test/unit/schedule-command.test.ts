import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Actor,
  type CommandPolicy,
  DEFAULT_COMMAND_POLICY,
  parseScheduleCommand,
  planScheduleText,
  ScheduleCommandError,
  type ScheduleOrigin,
  type SchedulePlanContext,
} from "../../src/core/commands/index.ts";
import {
  decodeSchedule,
  encodeSchedule,
  MAX_SCHEDULES_PER_OWNER,
  type Schedule,
  type ScheduleRecord,
} from "../../src/core/schedules/index.ts";

const NOW = Date.UTC(2026, 11, 6, 12, 0); // a Sunday, 12:00 UTC
const MEMBER: Actor = { id: "slack:U1", isPlatformAdmin: false };
const ADMIN: Actor = { id: "slack:U2", isPlatformAdmin: true };
const DM: ScheduleOrigin = {
  platform: "slack",
  workspace: "T1",
  channel: "D1",
  conversation: "D1",
  kind: "dm",
  user: "U1",
  userName: "ada",
};
const CHANNEL: ScheduleOrigin = { ...DM, channel: "C1", conversation: "C1", kind: "group" };

function ctx(over: Partial<SchedulePlanContext> = {}): SchedulePlanContext {
  return {
    actor: MEMBER,
    policy: DEFAULT_COMMAND_POLICY,
    where: DM,
    now: NOW,
    zone: "UTC",
    records: [],
    newId: "s7",
    ...over,
  };
}

function record(schedule: Partial<Schedule> = {}, state: Partial<ScheduleRecord> = {}) {
  return {
    schedule: {
      id: "s1",
      target: {
        platform: "slack",
        workspace: "T1",
        channel: "C1",
        conversation: "C1",
        kind: "group",
      },
      prompt: "Summarise yesterday.",
      timing: { kind: "cron", pattern: "0 9 * * 1-5", tz: "Europe/Berlin" },
      owner: { user: "U9", userName: "grace" },
      catchUp: "one",
      origin: "chat",
      ...schedule,
    } as Schedule,
    runs: 0,
    ...state,
  } satisfies ScheduleRecord;
}

const reply = (plan: ReturnType<typeof planScheduleText>) =>
  plan.kind === "reply" ? plan.text : plan.reply;

describe("reading /schedule", () => {
  it("reads the issue's example: the time in quotes, the prompt, the channel at the end", () => {
    expect(
      parseScheduleCommand('add "weekdays 09:00 Europe/Berlin" summarise yesterday in #incidents'),
    ).toEqual({
      kind: "add",
      when: "weekdays 09:00 Europe/Berlin",
      prompt: "summarise yesterday",
      target: { kind: "channel", channel: "incidents", isId: false },
    });
    // Slack and Discord send a picked channel as a mention that carries its id.
    expect(parseScheduleCommand('add "every 2h" check the queue in <#C0123|ops>')).toMatchObject({
      target: { kind: "channel", channel: "C0123", isId: true },
    });
    expect(parseScheduleCommand("add “daily 18:00” wrap up the day here")).toMatchObject({
      when: "daily 18:00",
      prompt: "wrap up the day",
      target: { kind: "here" },
    });
    expect(parseScheduleCommand("")).toEqual({ kind: "list", all: false });
    expect(parseScheduleCommand("list all")).toEqual({ kind: "list", all: true });
    expect(parseScheduleCommand("pause S3 on holiday")).toEqual({
      kind: "pause",
      id: "s3",
      reason: "on holiday",
    });
    expect(parseScheduleCommand("rm s3")).toEqual({ kind: "remove", id: "s3" });
  });

  it("names what is wrong and the form to use", () => {
    expect(() => parseScheduleCommand("add every 2h check")).toThrow(
      /Put the time in quotes, then the prompt: \/schedule add "<when>" <prompt>/,
    );
    expect(() => parseScheduleCommand('add "every 2h"')).toThrow(
      'Say what I should do at each run, after the time: /schedule add "every 2h" <prompt>',
    );
    expect(() => parseScheduleCommand("pause")).toThrow(/Which schedule\? Give its id/);
    expect(() => parseScheduleCommand("frobnicate")).toThrow(
      /"frobnicate" is not a \/schedule command/,
    );
  });

  it("property: any line reads as a command or a ScheduleCommandError, nothing else", () => {
    const word = fc.constantFrom(
      "add",
      "list",
      "pause",
      "resume",
      "remove",
      "help",
      "all",
      '"',
      "“",
      "in",
      "#x",
      "<#C1>",
      "here",
    );
    const line = fc.array(fc.oneof(word, fc.string({ maxLength: 8 })), { maxLength: 8 });
    fc.assert(
      fc.property(line, (words) => {
        try {
          parseScheduleCommand(words.join(" "));
        } catch (error) {
          expect(error).toBeInstanceOf(ScheduleCommandError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("property: a quoted time, a prompt and a target come back as written", () => {
    const text = fc
      .string({ minLength: 1, maxLength: 30 })
      .map((s) => s.replace(/["“”„'‘’«»\s]+/g, "x"))
      .filter((s) => s !== "" && !/^(here|in|to)$/i.test(s));
    fc.assert(
      fc.property(
        text,
        fc.array(text, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("", " here", " in <#C0123|ops>", " to #C777"),
        (when, prompt, where) => {
          const line = `add "${when}" ${prompt.join(" ")}${where}`;
          const parsed = parseScheduleCommand(line);
          expect(parsed).toMatchObject({ kind: "add", when, prompt: prompt.join(" ") });
          const target = (parsed as { target: { kind: string } }).target;
          expect(target.kind).toBe(where.includes("#") ? "channel" : "here");
        },
      ),
    );
  });
});

describe("planning /schedule", () => {
  it("makes a schedule in a DM for a member, showing the pattern and the next three runs", () => {
    const plan = planScheduleText('add "weekdays 09:00 Europe/Berlin" summarise yesterday', ctx());
    expect(plan.kind).toBe("define");
    if (plan.kind !== "define") return;
    expect(plan.schedule).toMatchObject({
      id: "s7",
      target: { platform: "slack", channel: "D1", kind: "dm" },
      owner: { user: "U1", userName: "ada" },
      timing: { kind: "cron", pattern: "0 9 * * 1-5", tz: "Europe/Berlin" },
      origin: "chat",
    });
    expect(plan.reply).toBe(
      [
        "Scheduled s7 here, running as you: summarise yesterday",
        'When: cron "0 9 * * 1-5" (Europe/Berlin)',
        "Next runs: Mon 2026-12-07 09:00 Europe/Berlin; Tue 2026-12-08 09:00 Europe/Berlin; Wed 2026-12-09 09:00 Europe/Berlin",
        "/schedule pause s7, /schedule resume s7 and /schedule remove s7 change it.",
      ].join("\n"),
    );
  });

  it("keeps the bot account the command came in on, through Redis's JSON", () => {
    const plan = planScheduleText('add "every 2h" x', ctx({ where: { ...DM, account: "B2" } }));
    if (plan.kind !== "define") throw new Error(`not made: ${reply(plan)}`);
    expect(decodeSchedule(encodeSchedule(plan.schedule)).target.account).toBe("B2");
  });

  it("refuses a member a schedule into a channel as /tools refuses the channel scope, and lets an admin", () => {
    const line = 'add "every 2h" check the queue in <#C0123|ops>';
    const refused = reply(planScheduleText(line, ctx()));
    expect(refused).toBe(
      "Only workspace admins or the bot's configured admins can change the channel scope, and a schedule that speaks in a channel is a channel-scope change. Ask one of them, or make the schedule in a thread or in a DM with me (the conversation scope).",
    );
    expect(reply(planScheduleText('add "every 2h" check here', ctx({ where: CHANNEL })))).toBe(
      refused,
    );
    const allowed = planScheduleText(line, ctx({ actor: ADMIN }));
    expect(allowed).toMatchObject({
      kind: "define",
      schedule: { target: { channel: "C0123", conversation: "C0123", kind: "group" } },
    });
    const configured: CommandPolicy = { ...DEFAULT_COMMAND_POLICY, admins: ["slack:U1"] };
    expect(planScheduleText(line, ctx({ policy: configured })).kind).toBe("define");
  });

  it("refuses the workspace's whole list to a member, in the words /tools uses", () => {
    expect(reply(planScheduleText("list all", ctx()))).toMatch(
      /^Only workspace admins or the bot's configured admins can see every schedule of the workspace \(the workspace scope\)\. Ask one of them/,
    );
  });

  it("answers a time it cannot read with the part and the forms it takes", () => {
    expect(reply(planScheduleText('add "whenever" do it', ctx()))).toMatch(
      /^I can't schedule that: when: "whenever" cannot be used: write a time such as "weekdays 09:00 Europe\/Berlin"/,
    );
    expect(reply(planScheduleText('add "2026-01-01T09:00Z" x', ctx()))).toBe(
      'I can\'t schedule that: "2026-01-01T09:00Z" has passed. Give a time to come, e.g. "tomorrow 9:00" or "in 30m".',
    );
    expect(reply(planScheduleText('add "every 2h" x in #general', ctx({ actor: ADMIN })))).toMatch(
      /I can't tell which channel "#general" is from its name\. Type # and pick the channel/,
    );
  });

  it(`stops a person at ${MAX_SCHEDULES_PER_OWNER} schedules`, () => {
    const mine = Array.from({ length: MAX_SCHEDULES_PER_OWNER }, (_, i) =>
      record({ id: `s${i}`, owner: { user: "U1" } }),
    );
    expect(reply(planScheduleText('add "every 2h" x', ctx({ records: mine })))).toMatch(
      /^You have 20 schedules already/,
    );
    const ended = mine.map((r) => ({ ...r, ended: "once" }));
    expect(planScheduleText('add "every 2h" x', ctx({ records: ended })).kind).toBe("define");
  });

  it("lists this conversation's schedules and the person's own: timing, next run, last run, paused", () => {
    const records = [
      record(
        {
          id: "s1",
          target: { ...record().schedule.target, channel: "D1", conversation: "D1", kind: "dm" },
        },
        {
          lastRun: { at: NOW - 1000, tick: Date.UTC(2026, 11, 4, 8) },
          outcome: { text: "queued", at: 0 },
        },
      ),
      record({ id: "s2", owner: { user: "U1" } }, { paused: { reason: "owner left", at: NOW } }),
      record({ id: "s3" }),
    ];
    const text = reply(planScheduleText("list", ctx({ records })));
    expect(text.split("\n")).toEqual([
      "Schedules here and yours (2):",
      '• s1 · cron "0 9 * * 1-5" (Europe/Berlin) · in a DM · next Mon 2026-12-07 09:00 Europe/Berlin · last run Fri 2026-12-04 09:00 Europe/Berlin (queued) · by grace: Summarise yesterday.',
      '• s2 · cron "0 9 * * 1-5" (Europe/Berlin) · in <#C1> · paused: owner left · not run yet · by U1: Summarise yesterday.',
    ]);
  });

  it("lets the owner or an admin pause, resume and remove; names a missing id and the fix", () => {
    const records = [record({ id: "s1" }), record({ id: "s2", owner: { user: "U1" } })];
    expect(reply(planScheduleText("pause s1", ctx({ records })))).toBe(
      "Only the person who made s1 (grace), or workspace admins or the bot's configured admins (it is a channel-scope schedule), can pause it. Ask one of them.",
    );
    expect(planScheduleText("pause s1", ctx({ records, actor: ADMIN }))).toMatchObject({
      kind: "pause",
      id: "s1",
    });
    expect(planScheduleText("remove s2", ctx({ records }))).toMatchObject({
      kind: "remove",
      id: "s2",
    });
    expect(reply(planScheduleText("resume s2", ctx({ records })))).toBe(
      "s2 is not paused; it runs as planned.",
    );
    expect(reply(planScheduleText("remove s9", ctx({ records })))).toMatch(
      /^There is no schedule "s9" here\. \/schedule list shows the ids/,
    );
    const config = [record({ id: "standup", origin: "config", owner: { user: "U1" } })];
    expect(reply(planScheduleText("remove standup", ctx({ records: config })))).toMatch(
      /standup is declared in the config file; remove it there/,
    );
  });
});

describe("docs/operate/schedules.md", () => {
  const page = readFileSync(new URL("../../docs/operate/schedules.md", import.meta.url), "utf8");

  it("prints what /schedule answers, word for word", () => {
    const examples = [
      'add "weekdays 09:00 Europe/Berlin" summarise yesterday',
      'add "whenever" summarise yesterday',
      'add "every 2h" check the deploy queue in #ops',
    ];
    for (const line of examples) {
      expect(page).toContain(`/schedule ${line}\n${reply(planScheduleText(line, ctx()))}\n`);
    }
  });
});
