import { z } from "zod";
import type { ScheduleTarget } from "../schedules/index.ts";
import { describeValue } from "./errors.ts";
import { strictMap } from "./section-map.ts";

/** A string that must say something: its error names `what` was expected. */
export const nonEmptyText = (what: string) =>
  z.string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` }).min(1, {
    error: `expected ${what}, found an empty string.`,
  });

/**
 * Where a message the bot gives itself goes, as `schedules:` and `hooks:`
 * write it: `{ platform: slack, workspace: T0123, channel: C0456 }`, with
 * `thread:` to answer in a thread and `dm: true` for a direct message with
 * the owner.
 */
export const targetField = strictMap(
  {
    platform: nonEmptyText("the platform's name (slack, discord, telegram, console)"),
    workspace: nonEmptyText("the workspace id (Slack team, Discord guild, Telegram chat)"),
    channel: nonEmptyText("the channel id"),
    thread: nonEmptyText("the thread id").optional(),
    dm: z.boolean({ error: "expected true or false." }).optional(),
  },
  {
    takes: "A target takes platform:, workspace:, channel:, thread: and dm:.",
    notAMap: (found) =>
      `expected a map such as { platform: slack, workspace: T0123, channel: C0456 }, found ${found}.`,
  },
).transform(
  (where): ScheduleTarget => ({
    platform: where.platform,
    workspace: where.workspace,
    channel: where.channel,
    conversation: where.thread ?? where.channel,
    ...(where.thread ? { thread: where.thread } : {}),
    kind: where.dm ? "dm" : "group",
  }),
);

/** The person a schedule or hook runs as: a platform user id (Telegram's are numbers in YAML). */
export const ownerField = (what: string) =>
  z.union([nonEmptyText(what), z.number().transform(String)]);
