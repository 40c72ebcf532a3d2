/**
 * Remembers results of a pure function of a string, up to `maxChars` of
 * keys in all, so the same stored entry read turn after turn is worked on
 * once. The least recently used entry goes first when it is full; a key
 * longer than the whole budget is computed and not kept.
 *
 * @example
 * const decode = boundedMemo(1_000_000, (raw: string) => JSON.parse(raw));
 * decode('{"a":1}') === decode('{"a":1}'); // true: parsed once
 */
export function boundedMemo<T>(maxChars: number, compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, { value: T }>();
  let chars = 0;
  return (key) => {
    const hit = cache.get(key);
    if (hit !== undefined) {
      // Re-inserted, so the Map's order is least recently used first.
      cache.delete(key);
      cache.set(key, hit);
      return hit.value;
    }
    const value = compute(key);
    if (key.length > maxChars) return value;
    cache.set(key, { value });
    chars += key.length;
    while (chars > maxChars) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
      chars -= oldest.length;
    }
    return value;
  };
}
