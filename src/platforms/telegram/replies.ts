import type { Api } from "grammy";
import type { InlineKeyboardMarkup, Message } from "grammy/types";
import { splitTelegramHtml } from "./html-split.ts";
import { TELEGRAM_TEXT_LIMIT } from "./outbound.ts";

/**
 * Answers a message on the spot (a command's reply): in its chat and forum
 * topic, as a reply to it, as Telegram HTML; a reply too long for one
 * message is split, the buttons going with the last part.
 */
export async function sendReply(
  api: Api,
  to: Pick<Message, "chat" | "message_id" | "message_thread_id" | "is_topic_message">,
  html: string,
  keyboard?: InlineKeyboardMarkup,
): Promise<void> {
  const parts = splitTelegramHtml(html, TELEGRAM_TEXT_LIMIT);
  for (const [i, part] of parts.entries()) {
    await api.sendMessage(to.chat.id, part, {
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      reply_parameters: { message_id: to.message_id, allow_sending_without_reply: true },
      ...(to.is_topic_message && to.message_thread_id !== undefined
        ? { message_thread_id: to.message_thread_id }
        : {}),
      ...(keyboard && i === parts.length - 1 ? { reply_markup: keyboard } : {}),
    });
  }
}
