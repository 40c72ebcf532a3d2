import type { Redis } from "ioredis";
import { KeyScheme } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";

/** What a delivery's key holds while its `sendMessage` is on the way (sent-record-1.lua spells it too). */
export const SENDING = "sending";

/** The first message recorded wins; an intent ({@link SENDING}) does not count. */
const RECORD = LuaScript.file("sent-record-1");

/** What the ledger knows of one message of a delivery. */
export type SentState =
  /** Sent and recorded: this is the message. */
  | { readonly kind: "sent"; readonly messageId: string }
  /**
   * A send began and never recorded its message: it is on its way in
   * another worker, or that worker died while Telegram was answering and the
   * message may exist without the ledger knowing its id.
   */
  | { readonly kind: "sending" }
  | { readonly kind: "unsent" };

/**
 * Which Telegram message each delivery became, by its idempotency key.
 * Telegram takes no nonce, so this is what makes a retried post land once: a
 * delivery that finds its key answers with the message already sent, and of
 * two deliveries racing on one key (a worker that lost its lease and the one
 * that took over) the first to record wins and the other deletes its copy.
 *
 * The intent to send is recorded before `sendMessage` goes out. What remains
 * is the platform's own window: a worker killed after Telegram took the
 * message and before its answer was recorded leaves a message nobody can
 * look up (the Bot API cannot list a chat's messages), and the delivery that
 * resumes it finds the intent, says so in the log, and sends again.
 */
export class SentLedger {
  readonly #keys: KeyScheme;

  constructor(
    private readonly redis: Redis,
    /** The key prefix (the `KeyScheme` is built on it), or the scheme itself. */
    prefix: string | KeyScheme,
    /** Long enough to outlive any retry of a turn. */
    private readonly ttlMs = 7 * 24 * 3600 * 1000,
  ) {
    this.#keys = typeof prefix === "string" ? new KeyScheme(prefix) : prefix;
  }

  /** The key of one message of a delivery (a long answer is several). */
  key(idempotencyKey: string, part: number): string {
    return this.#keys.sentMessage("telegram", idempotencyKey, part);
  }

  /** The message id a delivery became, if it was sent and recorded. */
  async find(key: string): Promise<string | undefined> {
    const state = await this.state(key);
    return state.kind === "sent" ? state.messageId : undefined;
  }

  async state(key: string): Promise<SentState> {
    const held = await this.redis.get(key);
    if (held === null) return { kind: "unsent" };
    return held === SENDING ? { kind: "sending" } : { kind: "sent", messageId: held };
  }

  /**
   * Records that a send is about to go out (kept if anything is recorded
   * already) and answers what was recorded before it: the read and the
   * write go out together, one round trip. A caller that finds a message
   * `sent` sends nothing; its intent was never written.
   */
  async intend(key: string): Promise<SentState> {
    const [state] = await Promise.all([
      this.state(key),
      this.redis.set(key, SENDING, "PX", this.ttlMs, "NX"),
    ]);
    return state;
  }

  /** Records a sent message; returns the message id that won (ours, or one recorded before). */
  async record(key: string, messageId: string): Promise<string> {
    return String(await RECORD.run(this.redis, [key], [messageId, this.ttlMs]));
  }
}
