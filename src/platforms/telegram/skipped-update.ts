import type { Api } from "grammy";
import type { Message } from "grammy/types";

/** The reply to a message that could not be handled: what happened, and what to do. */
export const SKIPPED_MESSAGE_REPLY =
  "Sorry, something went wrong on my side with that message, so I did not pass it on. Please send it again; if this keeps happening, tell whoever runs this bot.";

/** The alert on a button whose press could not be handled (at most 200 characters). */
export const SKIPPED_PRESS_REPLY =
  "Sorry, that button could not be handled. Send the command again for a fresh list.";

/** How the person heard of a skipped update. */
export type SkipNotice = "replied" | "alerted" | "silent" | "unsent";

/**
 * Tells the person, where there is someone to tell, that their update was
 * skipped: a reply to their message (in a private chat, or in a group when
 * it was for the bot), or an alert on the button they pressed. Anything
 * else (a payload without a chat, a group message for someone else) stays
 * silent; "unsent" when Telegram refused the notice. The update may be any
 * JSON, so it is read defensively; this never throws.
 */
export async function tellSkipped(
  api: Api,
  update: unknown,
  /** Whether a group message was for the bot; a throw counts as no. */
  isForBot: (message: Message) => boolean,
): Promise<SkipNotice> {
  let notice: SkipNotice = "silent";
  try {
    const body = update as Record<string, unknown> | null;
    const query = body?.callback_query as { id?: unknown } | undefined;
    if (typeof query?.id === "string") {
      notice = "alerted";
      await api.answerCallbackQuery(query.id, { text: SKIPPED_PRESS_REPLY, show_alert: true });
      return "alerted";
    }
    const message = body?.message as Message | undefined;
    const chat = message?.chat?.id;
    if (typeof chat !== "number" || typeof message?.message_id !== "number") return "silent";
    if (message.chat.type !== "private" && !safely(() => isForBot(message))) return "silent";
    notice = "replied";
    await api.sendMessage(chat, SKIPPED_MESSAGE_REPLY, {
      reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
      ...(message.is_topic_message && typeof message.message_thread_id === "number"
        ? { message_thread_id: message.message_thread_id }
        : {}),
    });
    return "replied";
  } catch {
    return notice === "silent" ? "silent" : "unsent";
  }
}

function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}
