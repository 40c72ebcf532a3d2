import { z } from "zod";
import type { RemindersConfig } from "../../core/config/reminders-section.ts";
import { defineTool } from "../../core/tools/tool.ts";
import { ownerOf } from "../owner.ts";
import { answering } from "../refusals.ts";
import { formatDuration } from "./duration.ts";
import { ReminderInputError, ReminderLimitError } from "./errors.ts";
import type { LocalTimeAdjustment } from "./local-time.ts";
import type { Reminder } from "./reminder.ts";
import { resolveWhen } from "./resolve-time.ts";
import type { ReminderSchedule } from "./schedule.ts";
import { describeInstant } from "./time-text.ts";

/** The longest reminder text: it is posted as one message on every platform. */
export const MAX_REMINDER_TEXT = 1_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the reminder tools are built from; `now` is the clock, handed in so tests can pin it. */
export interface ReminderToolDeps {
  readonly schedule: ReminderSchedule;
  readonly now: () => number;
  readonly defaults: RemindersConfig;
}

/** Mistakes in the arguments become the tool's answer. */
const REFUSALS = [ReminderInputError];

export function setReminderTool({ schedule, now, defaults }: ReminderToolDeps) {
  return defineTool({
    id: "set_reminder",
    description:
      "Set a reminder for the person you are talking to: at the time given, it is posted in this conversation (and thread), mentioning them. Give either at (a date and time) or in (a duration from now).",
    parameters: z.object({
      text: z
        .string()
        .trim()
        .min(1, { error: "the reminder has no text; say what to remind them of." })
        .describe(`What to remind them of, at most ${MAX_REMINDER_TEXT} characters.`),
      at: z
        .string()
        .optional()
        .describe(
          'An ISO 8601 date and time: local, read in time_zone ("2026-12-01T09:00"), or with an offset ("2026-12-01T09:00+01:00").',
        ),
      in: z
        .string()
        .optional()
        .describe(
          'A duration from now: a number and a unit s, m, h, d or w, e.g. "90m", "2h30m", "1d".',
        ),
      time_zone: z
        .string()
        .optional()
        .describe(
          `The person's IANA time zone, e.g. "Europe/Berlin"; used to read at and to show the time. Defaults to ${defaults.timeZone}.`,
        ),
    }),
    effects: true,
    execute: ({ text, at, in: after, time_zone }, ctx) =>
      answering(async () => {
        const length = [...text].length;
        if (length > MAX_REMINDER_TEXT) {
          throw new ReminderLimitError(
            "text_length",
            MAX_REMINDER_TEXT,
            `The reminder text is ${length} characters; it may be at most ${MAX_REMINDER_TEXT}. Shorten it and set it again.`,
          );
        }
        const moment = now();
        const when = resolveWhen({ at, in: after, timeZone: time_zone }, moment, {
          defaultTimeZone: defaults.timeZone,
          maxHorizonMs: defaults.maxHorizonDays * DAY_MS,
        });
        const asked: Reminder = {
          id: await schedule.nextId(ctx.callKey),
          platform: ctx.platform,
          ...(ctx.account ? { account: ctx.account } : {}),
          workspace: ctx.workspace,
          channel: ctx.channel,
          conversation: ctx.conversation,
          ...(ctx.thread === undefined ? {} : { thread: ctx.thread }),
          user: ctx.user,
          text,
          dueAt: when.dueAt,
          timeZone: when.timeZone,
          createdAt: moment,
        };
        // A resumed turn repeating the call gets the reminder it set the first time, in the same words.
        const reminder = await schedule.add(asked, moment, defaults.maxPending);
        return [
          `Reminder ${reminder.id} set for ${describeInstant(reminder.dueAt, reminder.timeZone)}, in ${formatDuration(reminder.dueAt - reminder.createdAt)}: ${JSON.stringify(reminder.text)}.`,
          ...(when.adjustment ? [adjustmentNote(when.adjustment, when.timeZone)] : []),
          `It will be posted in this ${ctx.thread === undefined ? "conversation" : "thread"}; cancel_reminder with id ${reminder.id} cancels it.`,
        ].join(" ");
      }, REFUSALS),
  });
}

export function listRemindersTool({ schedule, now }: ReminderToolDeps) {
  return defineTool({
    id: "list_reminders",
    description:
      "List the pending reminders of the person you are talking to in this workspace, soonest first, with their ids.",
    parameters: z.object({}),
    execute: (_args, ctx) =>
      answering(async () => {
        const reminders = await schedule.list(ownerOf(ctx));
        if (reminders.length === 0) return "You have no pending reminders in this workspace.";
        const moment = now();
        const lines = reminders.map((r) => {
          const due = r.dueAt > moment ? `in ${formatDuration(r.dueAt - moment)}` : "due now";
          const where =
            r.conversation === ctx.conversation && r.channel === ctx.channel
              ? ""
              : " (in another conversation)";
          return `- ${r.id}: ${describeInstant(r.dueAt, r.timeZone)}, ${due}${where}: ${JSON.stringify(r.text)}`;
        });
        const heading =
          reminders.length === 1 ? "1 pending reminder" : `${reminders.length} pending reminders`;
        return [`${heading}:`, ...lines].join("\n");
      }, REFUSALS),
  });
}

export function cancelReminderTool({ schedule }: ReminderToolDeps) {
  return defineTool({
    id: "cancel_reminder",
    description:
      "Cancel one of the pending reminders of the person you are talking to, by its id (list_reminders shows the ids).",
    parameters: z.object({
      id: z
        .string()
        .trim()
        .min(1, { error: 'give the reminder\'s id, e.g. "r12".' })
        .describe('The reminder\'s id, e.g. "r12".'),
    }),
    execute: ({ id }, ctx) =>
      answering(async () => {
        const { kind, reminder } = await schedule.cancel(ownerOf(ctx), id);
        if (kind === "firing") {
          return `Reminder ${reminder.id} is being posted right now, so it can no longer be cancelled.`;
        }
        return `Cancelled reminder ${reminder.id} (was due ${describeInstant(reminder.dueAt, reminder.timeZone)}): ${JSON.stringify(reminder.text)}.`;
      }, REFUSALS),
  });
}

function adjustmentNote(adjustment: LocalTimeAdjustment, zone: string): string {
  return adjustment.kind === "skipped"
    ? `Note: ${adjustment.requested} does not exist in ${zone} (the clocks skip that hour for daylight saving time), so it is set for ${adjustment.used}, the same time after the jump.`
    : `Note: ${adjustment.requested} happens twice in ${zone} (the clocks go back that night); the first one (${adjustment.used}) is used.`;
}
