import type { Redis } from "ioredis";
import { hashFromReply } from "./lua.ts";

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
 * {@link readHash} for keys that share a slot (one hash tag), in one round
 * trip: a pipeline of plain HGETALLs (a script would cost Redis one command
 * more for the same answers). A key of another type is reported, not thrown.
 */
export async function readHashes(redis: Redis, keys: readonly string[]): Promise<HashReading[]> {
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.hgetall(key);
  const replies = (await pipeline.exec()) ?? [];
  return Promise.all(
    keys.map(async (key, i) => {
      const [error, hash] = replies[i] ?? [new Error(`no reply for ${key}`), undefined];
      if (!error) return { hash: (hash ?? {}) as Record<string, string> };
      if (!String(error.message).startsWith("WRONGTYPE")) throw error;
      return { hash: {}, problem: `${key} holds a ${await redis.type(key)}, not a hash` };
    }),
  );
}

/** A flat HGETALL reply fetched by a script that marks a key of another type (see READ_HASHES). */
export function hashReading(flat: readonly string[], key: string): HashReading {
  if (flat[0] === "__wrongtype__") {
    return { hash: {}, problem: `${key} holds a ${flat[1]}, not a hash` };
  }
  return { hash: hashFromReply(flat) };
}
