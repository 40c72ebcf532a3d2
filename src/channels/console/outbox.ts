import type { Redis } from "ioredis";
import type { ConversationAddress } from "../../core/agent/inbound.ts";
import type { DeliveryTarget, Outbound } from "../../ports/outbound.ts";
import { KeyScheme } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";
import { LocalFiles } from "./files.ts";

/**
 * The console channel's outbound: answers go into a Redis stream that the
 * console process reads, so workers in other processes (or on other
 * machines) can answer a terminal too. Posting is exactly once per
 * idempotency key: the key and the stream entry are written by one script.
 */
const POST = new LuaScript(`
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'kind', 'post', 'conversation', ARGV[1], 'text', ARGV[2], 'key', ARGV[5])
redis.call('SET', KEYS[1], id, 'PX', ARGV[4])
return id
`);

export interface OutboxEntry {
  readonly id: string;
  readonly kind: "post" | "edit";
  readonly conversation: string;
  readonly text: string;
  readonly ref?: string;
  readonly key?: string;
}

export class RedisOutbox implements Outbound {
  readonly maxLength = 40_000;
  readonly canEdit = false;
  readonly stream: string;
  readonly #sentKey: (idempotencyKey: string) => string;
  /** `/attach <path>` files, read from the worker's disk. */
  readonly files = new LocalFiles();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly conversationOf: (target: ConversationAddress) => string,
  ) {
    const keys = new KeyScheme(prefix).outbox();
    this.stream = keys.stream;
    this.#sentKey = keys.sent;
  }

  async post(target: DeliveryTarget, text: string, { idempotencyKey }: { idempotencyKey: string }) {
    const keyName = this.#sentKey(idempotencyKey);
    const id = await POST.run(
      this.redis,
      [keyName, this.stream],
      [this.conversationOf(target), text, 100_000, 24 * 60 * 60 * 1000, idempotencyKey],
    );
    return String(id);
  }

  async edit(target: DeliveryTarget, ref: string, text: string): Promise<void> {
    await this.redis.xadd(
      this.stream,
      "MAXLEN",
      "~",
      "100000",
      "*",
      "kind",
      "edit",
      "conversation",
      this.conversationOf(target),
      "text",
      text,
      "ref",
      ref,
    );
  }

  async typing(): Promise<void> {}

  /** Reads entries after `since` ("0" for all), waiting up to `blockMs` for new ones. */
  async read(since: string, blockMs: number, redis: Redis = this.redis): Promise<OutboxEntry[]> {
    const result = (await redis.xread(
      "COUNT",
      1000,
      "BLOCK",
      blockMs,
      "STREAMS",
      this.stream,
      since,
    )) as [string, [string, string[]][]][] | null;
    if (!result) return [];
    const entries: OutboxEntry[] = [];
    for (const [, items] of result) {
      for (const [id, fields] of items) {
        const map: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2)
          map[fields[i] as string] = fields[i + 1] as string;
        entries.push({
          id,
          kind: map.kind === "edit" ? "edit" : "post",
          conversation: map.conversation ?? "",
          text: map.text ?? "",
          ...(map.ref ? { ref: map.ref } : {}),
          ...(map.key ? { key: map.key } : {}),
        });
      }
    }
    return entries;
  }
}
