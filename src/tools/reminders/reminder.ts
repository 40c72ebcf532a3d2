import { z } from "zod";
import { addressOnly } from "../../core/conversation.ts";
import type { DeliveryTarget } from "../../ports/outbound.ts";
import { senderFields } from "../../ports/sender-fields.ts";
import type { WorkspaceRef } from "../../store/keys.ts";
import { ReminderDataError } from "./errors.ts";

/** Whose reminders: one person in one workspace. */
export interface ReminderOwner extends WorkspaceRef {
  readonly user: string;
}

/**
 * A pending reminder: what the delayed job carries and the person's index
 * lists. It holds everything needed to post it, so a worker that starts
 * long after it was set (another process, after a restart) can fire it.
 */
export interface Reminder extends ReminderOwner {
  /** `r<number>`, unique under the prefix; also the BullMQ job id and the delivery's idempotency key. */
  readonly id: string;
  /** The bot account it was set with, when the platform has several: it fires through that bot. */
  readonly account?: string;
  readonly channel: string;
  readonly conversation: string;
  /** The thread it was set in; it fires there. */
  readonly thread?: string;
  readonly text: string;
  /** Milliseconds since the epoch. */
  readonly dueAt: number;
  /** The zone the person set it in, for showing the time back. */
  readonly timeZone: string;
  readonly createdAt: number;
}

const reminderSchema = z.object({
  id: z.string().regex(/^r[0-9]+$/),
  ...senderFields,
  text: z.string().min(1).max(10_000),
  dueAt: z.number().int().nonnegative(),
  timeZone: z.string().min(1).max(64),
  createdAt: z.number().int().nonnegative(),
});

/**
 * Reads a reminder back from a job or the index. Data another version (or a
 * person) wrote is checked rather than trusted: a worker must not post
 * garbage into a channel.
 *
 * @throws ReminderDataError naming the first field that is wrong.
 */
export function decodeReminder(data: unknown): Reminder {
  const parsed = reminderSchema.safeParse(data);
  if (parsed.success) {
    const { thread, ...rest } = parsed.data;
    return thread === undefined ? rest : { ...rest, thread };
  }
  const issue = parsed.error.issues[0];
  throw new ReminderDataError(
    `A stored reminder is unreadable: ${issue?.path.join(".") || "(data)"}: ${issue?.message}. It was written by another version or by hand; cancel it and set it again.`,
  );
}

export function targetOf(reminder: Reminder): DeliveryTarget {
  const address = addressOnly(reminder);
  return reminder.thread === undefined ? address : { ...address, thread: reminder.thread };
}

/**
 * How a person is named in a post: a real mention where the platform's plain
 * text has one (so the reminder notifies them), else the id as is.
 */
export function mentionOf(platform: string, user: string): string {
  if (platform === "slack" && /^[UW][A-Z0-9]+$/.test(user)) return `<@${user}>`;
  if (platform === "discord" && /^\d+$/.test(user)) return `<@${user}>`;
  return user;
}

/** The text a fired reminder posts: `⏰ Reminder for <@U123>: stand-up notes`. */
export function reminderMessage(reminder: Reminder): string {
  return `⏰ Reminder for ${mentionOf(reminder.platform, reminder.user)}: ${reminder.text}`;
}
