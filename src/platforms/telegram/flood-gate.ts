import type { Transformer } from "grammy";
import { type SendPace, SendPacer, type SendPriority, TELEGRAM_SEND_PACE } from "./send-pacer.ts";

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
 * of one bot share it, and each account of a deployment has its own.
 */
export class FloodGate {
  readonly pacer: SendPacer;
  readonly #holds = new Map<string, number>();

  constructor(pace: SendPace = TELEGRAM_SEND_PACE) {
    this.pacer = new SendPacer(pace);
  }

  /** The transformer that makes every call of a client go through this gate. */
  transformer(): Transformer {
    return async (prev, method, payload, signal) => {
      const chat = chatOf(payload);
      let waited = 0;
      for (;;) {
        await this.#clear(chat);
        if (BOT_WIDE.has(method)) await this.pacer.take(laneOf(payload));
        const result = await prev(method, payload, signal);
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

const gates = new Map<string, FloodGate>();

function laneOf(payload: unknown): SendPriority {
  const marked = typeof payload === "object" && payload !== null && STREAM_LANE in payload;
  return marked ? "stream" : "post";
}

function chatOf(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const chat = (payload as { chat_id?: unknown }).chat_id;
  return typeof chat === "number" || typeof chat === "string" ? String(chat) : undefined;
}
