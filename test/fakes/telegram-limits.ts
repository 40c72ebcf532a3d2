/**
 * Telegram's flood control, as the fake Bot API enforces it when asked
 * (`startFakeTelegram({ limits: TELEGRAM_LIMITS })`): about one message a
 * second in a chat (after a short burst) and about thirty a second for the
 * whole bot, each a token bucket; a call past
 * either is refused with a 429 "Too Many Requests: retry after N" and
 * `parameters.retry_after` in whole seconds, as Telegram answers it. Telegram
 * publishes these as guidance, not exact figures; the fake holds them
 * strictly, so a bot that passes here has room on the real one.
 *
 * In a chat every call that shows something counts (messages, edits,
 * drafts, uploads); the bot-wide limit counts new messages only, the
 * broadcast limit Telegram documents. {@link FloodLedger} also says whether
 * the bot honoured every refusal: a call to a chat during its wait is one
 * it did not.
 */
import { BotApiError } from "./telegram-updates.ts";

export interface TelegramLimits {
  /** Calls that show something in one chat, per second. */
  readonly perChatPerSecond: number;
  /** New messages the bot sends, all chats together, per second. */
  readonly perBotPerSecond: number;
  /** How many calls in a row a chat may make before the pace holds (Telegram allows short bursts). */
  readonly perChatBurst: number;
}

/**
 * Telegram's published guidance: one message a second in a chat (a burst
 * of three let through), thirty a second for a bot.
 */
export const TELEGRAM_LIMITS: TelegramLimits = {
  perChatPerSecond: 1,
  perBotPerSecond: 30,
  perChatBurst: 3,
};

/** New messages: the bot-wide limit counts these. */
const NEW_MESSAGES: ReadonlySet<string> = new Set([
  "sendMessage",
  "sendPhoto",
  "sendDocument",
  "sendAudio",
  "sendVoice",
  "sendVideo",
  "sendMediaGroup",
]);
/** Everything that shows something in a chat: the per-chat limit counts these. */
const IN_CHAT: ReadonlySet<string> = new Set([
  ...NEW_MESSAGES,
  "editMessageText",
  "editMessageReplyMarkup",
  "sendMessageDraft",
]);

/** One refusal: the chat, when, and how long the bot was told to wait. */
export interface FloodWait {
  readonly chat: string;
  readonly at: number;
  readonly retryAfterMs: number;
}

/**
 * The flood control of one fake bot: {@link check} refuses a call past a
 * limit, and records the refusal and any call that came during a wait.
 */
export class FloodLedger {
  readonly #chats = new Map<string, Bucket>();
  readonly #bot: Bucket;
  readonly #waits = new Map<string, number>();
  /** Every 429 answered. */
  readonly refusals: FloodWait[] = [];
  /** Calls that came to a chat before the wait it was told had passed. */
  readonly early: FloodWait[] = [];

  constructor(private readonly limits: TelegramLimits) {
    this.#bot = new Bucket(limits.perBotPerSecond, limits.perBotPerSecond, 0);
  }

  /** Throws the 429 Telegram would answer, or counts the call against the limits. */
  check(method: string, chatId: unknown, now = Date.now()): void {
    if (!IN_CHAT.has(method) || chatId === undefined) return;
    const chat = String(chatId);
    const waitUntil = this.#waits.get(chat);
    if (waitUntil !== undefined && now < waitUntil) {
      this.early.push({ chat, at: now, retryAfterMs: waitUntil - now });
    }
    let bucket = this.#chats.get(chat);
    if (!bucket) {
      bucket = new Bucket(this.limits.perChatBurst, this.limits.perChatPerSecond, now);
      this.#chats.set(chat, bucket);
    }
    const newMessage = NEW_MESSAGES.has(method);
    // A chat told to wait is refused until then, whatever its bucket holds.
    const wait = Math.max(
      bucket.wait(now),
      newMessage ? this.#bot.wait(now) : 0,
      (waitUntil ?? 0) - now,
    );
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      this.#waits.set(chat, now + seconds * 1000);
      this.refusals.push({ chat, at: now, retryAfterMs: seconds * 1000 });
      throw new BotApiError(429, `Too Many Requests: retry after ${seconds}`, {
        retry_after: seconds,
      });
    }
    bucket.take();
    if (newMessage) this.#bot.take();
  }
}

/** A token bucket: `capacity` calls at once, refilled at `perSecond`. */
class Bucket {
  #tokens: number;
  #at: number;

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    now: number,
  ) {
    this.#tokens = capacity;
    this.#at = now;
  }

  /** How long until a call may go (0: now), having refilled to `now`. */
  wait(now: number): number {
    this.#tokens = Math.min(
      this.capacity,
      this.#tokens + ((now - this.#at) / 1000) * this.perSecond,
    );
    this.#at = now;
    return this.#tokens >= 1 ? 0 : ((1 - this.#tokens) / this.perSecond) * 1000;
  }

  take(): void {
    this.#tokens -= 1;
  }
}
