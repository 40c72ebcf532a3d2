import { TargetGoneError } from "../../ports/target-gone.ts";
import { isTelegramError } from "./api.ts";

/**
 * Telegram's answers that mean the chat is gone for the bot: every 403
 * (kicked from the group, not a member of the channel, blocked by the
 * person, the person's account deleted) and a chat Telegram does not know
 * (deleted, or never shared with the bot).
 */
const CHAT_NOT_FOUND = /chat not found/i;

/** `error` as a {@link TargetGoneError} when Telegram says `chat` is gone for the bot; else `error` itself. */
export function telegramGone(error: unknown, chat: string): unknown {
  if (isTelegramError(error, 403) || isTelegramError(error, 400, CHAT_NOT_FOUND)) {
    return new TargetGoneError("Telegram", chat, error.description, error);
  }
  return error;
}
