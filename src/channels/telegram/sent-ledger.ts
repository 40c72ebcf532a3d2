import type { Redis } from "ioredis";
import { LuaScript } from "../../store/lua.ts";

// KEYS: the delivery's key. ARGV: the message id just sent, ttl. The first writer wins.
const RECORD = new LuaScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return ARGV[1] end
return redis.call('GET', KEYS[1])
`);

/**
 * Which Telegram message each delivery became, by its idempotency key.
 * Telegram takes no nonce, so this is what makes a retried post land once: a
 * delivery that finds its key answers with the message already sent, and of
 * two deliveries racing on one key (a worker that lost its lease and the one
 * that took over) the first to record wins and the other deletes its copy.
 */
export class SentLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Long enough to outlive any retry of a turn. */
    private readonly ttlMs = 7 * 24 * 3600 * 1000,
  ) {}

  /** The key of one message of a delivery (a long answer is several). */
  key(idempotencyKey: string, part: number): string {
    return `${this.prefix}:telegram:sent:${idempotencyKey}:${part}`;
  }

  /** The message id a delivery became, if it was sent. */
  async find(key: string): Promise<string | undefined> {
    return (await this.redis.get(key)) ?? undefined;
  }

  /** Records a sent message; returns the message id that won (ours, or one recorded before). */
  async record(key: string, messageId: string): Promise<string> {
    return String(await RECORD.run(this.redis, [key], [messageId, this.ttlMs]));
  }
}
