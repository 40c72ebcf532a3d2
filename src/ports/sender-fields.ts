import { z } from "zod";

/** One part of an address as stored in a job or a record: a platform's id, never empty, bounded. */
export const addressPart = z.string().min(1).max(512);

/**
 * Where a message came from and who sent it, as every stored job and record
 * checks it when read back (the conversation queue's jobs, reminders).
 */
export const senderFields = {
  platform: addressPart,
  /** The bot account that took it, when the platform has several (ConversationAddress.account). */
  account: z.string().min(1).max(64).optional(),
  workspace: addressPart,
  channel: addressPart,
  conversation: addressPart,
  thread: addressPart.optional(),
  user: addressPart,
};
