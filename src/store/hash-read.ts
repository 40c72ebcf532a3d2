import type { Redis } from "ioredis";

/**
 * HGETALL that treats a key of another type (a hand-made mistake, or a key
 * left by something else under our prefix) as damage to report, not a crash.
 */
export async function readHash(
  redis: Redis,
  key: string,
): Promise<{ hash: Record<string, string>; problem?: string }> {
  try {
    return { hash: await redis.hgetall(key) };
  } catch (error) {
    if (!String((error as Error)?.message).startsWith("WRONGTYPE")) throw error;
    return { hash: {}, problem: `${key} holds a ${await redis.type(key)}, not a hash` };
  }
}
