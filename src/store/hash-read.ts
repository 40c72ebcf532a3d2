import type { Redis } from "ioredis";
import { hashFromReply, LuaScript } from "./lua.ts";

/** A hash as read, or why it could not be: a key of another type. */
export interface HashReading {
  readonly hash: Record<string, string>;
  readonly problem?: string;
}

/**
 * HGETALL that treats a key of another type (a hand-made mistake, or a key
 * left by something else under our prefix) as damage to report, not a crash.
 */
export async function readHash(redis: Redis, key: string): Promise<HashReading> {
  try {
    return { hash: await redis.hgetall(key) };
  } catch (error) {
    if (!String((error as Error)?.message).startsWith("WRONGTYPE")) throw error;
    return { hash: {}, problem: `${key} holds a ${await redis.type(key)}, not a hash` };
  }
}

/**
 * Several hashes of one slot in one script; a key of another type reads as
 * a marker turned into a problem. KEYS: the hashes.
 */
const READ_HASHES = new LuaScript(`
local out = {}
for i = 1, #KEYS do
  local hash = redis.pcall('HGETALL', KEYS[i])
  if hash.err then hash = {'__wrongtype__', redis.call('TYPE', KEYS[i])['ok']} end
  out[i] = hash
end
return out
`);

/** {@link readHash} for keys that share a slot (one hash tag), in one round trip. */
export async function readHashes(redis: Redis, keys: readonly string[]): Promise<HashReading[]> {
  const replies = (await READ_HASHES.run(redis, keys)) as string[][];
  return replies.map((flat, i) => hashReading(flat, keys[i] as string));
}

/** A flat HGETALL reply fetched by a script that marks a key of another type (see READ_HASHES). */
export function hashReading(flat: readonly string[], key: string): HashReading {
  if (flat[0] === "__wrongtype__") {
    return { hash: {}, problem: `${key} holds a ${flat[1]}, not a hash` };
  }
  return { hash: hashFromReply(flat) };
}
