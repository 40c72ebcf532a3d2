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
import { type BucketShape, RateBuckets, type RateLimitHit } from "./rate-buckets.ts";
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
  readonly #buckets = new RateBuckets();
  readonly #chat: BucketShape;
  readonly #bot: BucketShape;

  constructor(limits: TelegramLimits) {
    this.#chat = { capacity: limits.perChatBurst, perSecond: limits.perChatPerSecond };
    this.#bot = { capacity: limits.perBotPerSecond, perSecond: limits.perBotPerSecond };
  }

  /** Every 429 answered, by chat. */
  get refusals(): FloodWait[] {
    return this.#hits(this.#buckets.refusals);
  }

  /** Calls that came to a chat before the wait it was told had passed. */
  get early(): FloodWait[] {
    return this.#hits(this.#buckets.early);
  }

  /** Throws the 429 Telegram would answer, or counts the call against the limits. */
  check(method: string, chatId: unknown, now = Date.now()): void {
    if (!IN_CHAT.has(method) || chatId === undefined) return;
    const keys: [string, BucketShape][] = [[`chat:${chatId}`, this.#chat]];
    // Only new messages count against the bot; the wait is the chat's.
    if (NEW_MESSAGES.has(method)) keys.push(["bot", this.#bot]);
    const wait = this.#buckets.take(keys, now, (ms) => Math.max(1, Math.ceil(ms / 1000)) * 1000);
    if (wait > 0) {
      const seconds = wait / 1000;
      throw new BotApiError(429, `Too Many Requests: retry after ${seconds}`, {
        retry_after: seconds,
      });
    }
  }

  #hits(hits: readonly RateLimitHit[]): FloodWait[] {
    return hits.map((hit) => ({
      chat: hit.key.slice("chat:".length),
      at: hit.at,
      retryAfterMs: hit.waitMs,
    }));
  }
}
