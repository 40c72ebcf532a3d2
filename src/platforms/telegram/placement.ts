import type { DeliveryTarget } from "../../ports/outbound.ts";

/**
 * Where in a chat an answer goes, as Bot API send options: the forum topic
 * it came from, as a reply to the message it answers (sent anyway when that
 * message is gone). Text posts and uploads place themselves alike.
 */
export function placementOf(target: DeliveryTarget): {
  message_thread_id?: number;
  reply_parameters?: { message_id: number; allow_sending_without_reply: boolean };
} {
  return {
    ...(target.thread !== undefined ? { message_thread_id: Number(target.thread) } : {}),
    ...(target.replyTo !== undefined
      ? {
          reply_parameters: {
            message_id: Number(target.replyTo),
            allow_sending_without_reply: true,
          },
        }
      : {}),
  };
}
