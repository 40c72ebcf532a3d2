import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A Lua script run by its SHA, loaded on first use. Everything a script does
 * happens atomically in Redis, which is why every read-modify-write of the
 * store is one of these rather than a GET and a SET from JavaScript.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  async run(
    redis: Redis,
    keys: readonly string[],
    args: readonly (string | number)[] = [],
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
      // EVAL also caches the script, so the next run finds it by SHA again.
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** A Lua reply of `HGETALL` (a flat field, value, field, value list) as a record. */
export function hashFromReply(reply: unknown): Record<string, string> {
  const hash: Record<string, string> = {};
  if (!Array.isArray(reply)) return hash;
  for (let i = 0; i + 1 < reply.length; i += 2) hash[String(reply[i])] = String(reply[i + 1]);
  return hash;
}

/**
 * Lua's `unpack` is limited by the C stack (a few thousand values), so
 * scripts that take many arguments feed them to a command in chunks.
 */
export const UNPACK_CHUNK = 1000;
