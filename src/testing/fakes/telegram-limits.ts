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
 * broadcast limit Telegram documents. A new message sent with
 * `allow_paid_broadcast: true` (Bot API 7.11) counts against the bot's paid
 * limit, 1,000 a second, instead, and is recorded as paid (0.1 Stars each on
 * the real Telegram); its chat's limit holds as for any other. {@link FloodLedger} also says whether
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
  /** New messages sent as paid broadcasts, all chats together, per second (default 1,000). */
  readonly paidPerBotPerSecond?: number;
}

/**
 * Telegram's published guidance: one message a second in a chat (a burst
 * of three let through), thirty a second for a bot, a thousand for a bot's
 * paid broadcasts.
 */
export const TELEGRAM_LIMITS: TelegramLimits = {
  perChatPerSecond: 1,
  perBotPerSecond: 30,
  perChatBurst: 3,
  paidPerBotPerSecond: 1_000,
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

/** New messages that take `allow_paid_broadcast` (`forwardMessage` does not). */
const PAYABLE: ReadonlySet<string> = NEW_MESSAGES;

/** One new message Telegram let through as a paid broadcast: its chat, and when. */
export interface PaidMessage {
  readonly chat: string;
  readonly at: number;
}

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
  readonly #paidBot: BucketShape;
  readonly #paid: PaidMessage[] = [];

  constructor(limits: TelegramLimits) {
    this.#chat = { capacity: limits.perChatBurst, perSecond: limits.perChatPerSecond };
    this.#bot = { capacity: limits.perBotPerSecond, perSecond: limits.perBotPerSecond };
    const paid = limits.paidPerBotPerSecond ?? 1_000;
    this.#paidBot = { capacity: paid, perSecond: paid };
  }

  /** Every new message let through as a paid broadcast, in order: what the bot would pay Stars for. */
  get paid(): readonly PaidMessage[] {
    return this.#paid;
  }

  /** Every 429 answered, by chat. */
  get refusals(): FloodWait[] {
    return this.#hits(this.#buckets.refusals);
  }

  /** Calls that came to a chat before the wait it was told had passed. */
  get early(): FloodWait[] {
    return this.#hits(this.#buckets.early);
  }

  /**
   * Throws the 429 Telegram would answer, or counts the call against the
   * limits; `paid`: the call carried `allow_paid_broadcast: true`.
   */
  check(method: string, chatId: unknown, now = Date.now(), paid = false): void {
    if (!IN_CHAT.has(method) || chatId === undefined) return;
    const keys: [string, BucketShape][] = [[`chat:${chatId}`, this.#chat]];
    const broadcast = paid && PAYABLE.has(method);
    // Only new messages count against the bot, a paid one against its paid limit; the wait is the chat's.
    if (broadcast) keys.push(["bot:paid", this.#paidBot]);
    else if (NEW_MESSAGES.has(method)) keys.push(["bot", this.#bot]);
    const wait = this.#buckets.take(keys, now, (ms) => Math.max(1, Math.ceil(ms / 1000)) * 1000);
    if (wait > 0) {
      const seconds = wait / 1000;
      throw new BotApiError(429, `Too Many Requests: retry after ${seconds}`, {
        retry_after: seconds,
      });
    }
    if (broadcast) this.#paid.push({ chat: String(chatId), at: now });
  }

  #hits(hits: readonly RateLimitHit[]): FloodWait[] {
    return hits.map((hit) => ({
      chat: hit.key.slice("chat:".length),
      at: hit.at,
      retryAfterMs: hit.waitMs,
    }));
  }
}
