import type { Transformer } from "grammy";
import type { Redis } from "ioredis";
import type { LoggerPort } from "../../core/logger.ts";
import { KeyScheme } from "../../store/keys.ts";
import { RedisSendBucket, type SendBucket } from "./send-bucket.ts";
import {
  PAID_BROADCAST_PACE,
  type SendPace,
  SendPacer,
  type SendPriority,
  TELEGRAM_SEND_PACE,
} from "./send-pacer.ts";

const STREAM_LANE: unique symbol = Symbol("switchyard.telegram.streamLane");

/**
 * Telegram's flood control, kept by the bot before Telegram has to: every
 * new message of a bot token takes its turn from the token's
 * {@link SendPacer}, and a 429 is waited out and the call made again, as
 * often as it takes within {@link MAX_FLOOD_WAIT_MS}. While a chat waits
 * out a 429, every call to that chat (drafts and edits too) waits with it,
 * so none comes during the wait Telegram announced. A 429 retried here
 * costs none of the few attempts the auto-retry outside it keeps for 5xx.
 *
 * One gate per token in a process: the ingress's and the worker's clients
 * of one bot share it, and each account of a deployment has its own. Its
 * pacers draw from the bot's buckets in Redis once {@link share}d, so every
 * process of the bot keeps one pace together.
 *
 * A bot that pays for its broadcasts ({@link payFor}) sends every new
 * message that can carry it with `allow_paid_broadcast: true`, which
 * Telegram takes up to 1,000 a second of, for 0.1 Stars each: those go at
 * the paid pace, the rest at the free one.
 */
export class FloodGate {
  readonly pacer: SendPacer;
  /** The pace of new messages sent with `allow_paid_broadcast`. */
  readonly paidPacer: SendPacer;
  readonly #holds = new Map<string, number>();
  #paid: () => boolean = () => false;

  constructor(pace: SendPace = TELEGRAM_SEND_PACE, paidPace: SendPace = PAID_BROADCAST_PACE) {
    this.pacer = new SendPacer(pace);
    this.paidPacer = new SendPacer(paidPace);
  }

  /**
   * Draws the bot's tokens from buckets every process of the bot shares:
   * `free` for its messages at Telegram's free pace, `paid` for those sent
   * with `allow_paid_broadcast`. A later call replaces them.
   */
  share(
    buckets: { readonly free: SendBucket; readonly paid: SendBucket },
    logger?: LoggerPort,
  ): void {
    this.pacer.share(buckets.free, logger);
    this.paidPacer.share(buckets.paid, logger);
  }

  /**
   * Whether the bot pays for its broadcasts (`telegram.paid_broadcast`),
   * read at every new message so a config reload applies at once.
   */
  payFor(paid: () => boolean): void {
    this.#paid = paid;
  }

  /** The transformer that makes every call of a client go through this gate. */
  transformer(): Transformer {
    return async (prev, method, payload, signal) => {
      const chat = chatOf(payload);
      const paid = PAYABLE.has(method) && isObject(payload) && this.#paid();
      // The flag goes on the payload the call sends; the caller's own options object is left as it was.
      const sent = paid ? { ...payload, allow_paid_broadcast: true } : payload;
      let waited = 0;
      for (;;) {
        await this.#clear(chat);
        if (BOT_WIDE.has(method)) await (paid ? this.paidPacer : this.pacer).take(laneOf(payload));
        const result = await prev(method, sent as typeof payload, signal);
        if (result.ok || result.error_code !== 429) return result;
        const ms = Math.max(1, result.parameters?.retry_after ?? 1) * 1000;
        // A wait past the budget goes to the caller (the auto-retry, then the queue's job retry).
        if (waited + ms > MAX_FLOOD_WAIT_MS) return result;
        waited += ms;
        this.#hold(chat, ms);
      }
    };
  }

  #hold(chat: string | undefined, ms: number): void {
    const key = chat ?? "";
    const now = Date.now();
    this.#holds.set(key, Math.max(this.#holds.get(key) ?? 0, now + ms));
    // A chat never called again keeps its passed hold; drop those now and then.
    if (this.#holds.size > 1_000) {
      for (const [held, until] of this.#holds) if (until <= now) this.#holds.delete(held);
    }
  }

  /**
   * Waits until no 429's wait is running for the chat. Calls without a chat
   * (a callback's answer, the commands menu) share one wait of their own:
   * their 429 says nothing of any chat's.
   */
  async #clear(chat: string | undefined): Promise<void> {
    const key = chat ?? "";
    for (;;) {
      const now = Date.now();
      const until = this.#holds.get(key) ?? 0;
      if (until <= now) {
        if (until > 0) this.#holds.delete(key);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, until - now));
    }
  }
}

/**
 * Marks a call's options for the `stream` lane: it goes after every answer
 * and post waiting for the bot's pace. A symbol key, so no JSON or form the
 * call becomes carries it to Telegram.
 *
 * @example
 * await api.sendMessage(chat, preview, { ...STREAMING });
 */
export const STREAMING: { readonly [STREAM_LANE]: true } = { [STREAM_LANE]: true };

/** The gate of a bot token in this process, made on first use. */
export function floodGateOf(token: string): FloodGate {
  let gate = gates.get(token);
  if (!gate) {
    gate = new FloodGate();
    gates.set(token, gate);
  }
  return gate;
}

/**
 * Makes the gate of a bot token draw from the bot's buckets in Redis, which
 * every process sending for the bot shares (see {@link SendPacer}). The
 * keys name the bot by its id, the part of the token before the colon,
 * never by the token itself.
 */
export function shareSendPace(
  token: string,
  redis: Redis,
  prefix: string,
  logger?: LoggerPort,
): void {
  const keys = new KeyScheme(prefix);
  const bot = token.split(":")[0] ?? "";
  floodGateOf(token).share(
    {
      free: new RedisSendBucket(redis, keys.sendBucket("telegram", bot, "messages")),
      paid: new RedisSendBucket(redis, keys.sendBucket("telegram", bot, "paid")),
    },
    logger,
  );
}

/** How long one call may spend waiting out 429s before its caller hears of one. */
export const MAX_FLOOD_WAIT_MS = 120_000;

/**
 * New messages: Telegram's bot-wide limit ("about 30 messages per second")
 * counts these. Edits and drafts count in their chat only, where the chat
 * pacer keeps them to one a second.
 */
const BOT_WIDE: ReadonlySet<string> = new Set([
  "sendMessage",
  "sendPhoto",
  "sendDocument",
  "sendAudio",
  "sendVoice",
  "sendVideo",
  "sendAnimation",
  "sendSticker",
  "sendMediaGroup",
  "copyMessage",
  "forwardMessage",
]);

/**
 * New messages that can be sent as a paid broadcast: every method of
 * {@link BOT_WIDE} whose parameters include `allow_paid_broadcast` in
 * Bot API 7.11 and later (`forwardMessage` has none).
 */
const PAYABLE: ReadonlySet<string> = new Set([...BOT_WIDE].filter((m) => m !== "forwardMessage"));

const gates = new Map<string, FloodGate>();

function isObject(payload: unknown): payload is object {
  return typeof payload === "object" && payload !== null;
}

function laneOf(payload: unknown): SendPriority {
  const marked = typeof payload === "object" && payload !== null && STREAM_LANE in payload;
  return marked ? "stream" : "post";
}

function chatOf(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const chat = (payload as { chat_id?: unknown }).chat_id;
  return typeof chat === "number" || typeof chat === "string" ? String(chat) : undefined;
}
