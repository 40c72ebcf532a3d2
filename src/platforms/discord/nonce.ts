/**
 * The nonce a delivery rides on, from its idempotency key: with
 * `enforce_nonce`, Discord answers a second post of the same nonce (within
 * its few minutes) with the message it already made. Discord nonces are at
 * most 25 characters, so it is the key's hash, shortened.
 */
export function nonceOf(key: string): string {
  let hash = 0n;
  for (const char of key) hash = (hash * 131n + BigInt(char.codePointAt(0) ?? 0)) % 2n ** 64n;
  return hash.toString(36).slice(0, 25);
}
