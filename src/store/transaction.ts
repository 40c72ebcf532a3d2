import type { ChainableCommander } from "ioredis";

/**
 * Runs a MULTI and returns each command's reply, or throws the first error.
 * ioredis otherwise hands back `[error, reply]` pairs that are easy to ignore.
 */
export async function runTransaction(multi: ChainableCommander): Promise<unknown[]> {
  const results = await multi.exec();
  if (results === null) throw new Error("Redis aborted a MULTI the store does not WATCH");
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
