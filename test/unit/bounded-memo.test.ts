import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundedMemo } from "../../src/store/bounded-memo.ts";

describe("boundedMemo", () => {
  it("always answers what the function answers, and computes a key again only after it was evicted", () => {
    // One-character keys: the budget in characters is the number of keys remembered.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), {
          maxLength: 200,
        }),
        (max, keys) => {
          const computed: string[] = [];
          const memo = boundedMemo(max, (key) => {
            computed.push(key);
            return `${key}!`;
          });
          // A model of least-recently-used: the order of the last `max` distinct keys used.
          let recent: string[] = [];
          for (const key of keys) {
            const cached = recent.includes(key);
            const before = computed.length;
            expect(memo(key)).toBe(`${key}!`);
            expect(computed.length - before).toBe(cached ? 0 : 1);
            recent = [...recent.filter((k) => k !== key), key].slice(-max);
          }
        },
      ),
    );
  });

  it("keeps no more characters of keys than its budget, and never a key longer than all of it", () => {
    let computed = 0;
    const memo = boundedMemo(10, (key) => {
      computed++;
      return key.length;
    });
    memo("abcdefghijk"); // 11 characters: over the budget, not kept
    memo("abcdefghijk");
    expect(computed).toBe(2);
    memo("abcd");
    memo("efgh");
    memo("ijkl"); // 12 characters in all: "abcd" goes
    memo("efgh");
    memo("ijkl");
    expect(computed).toBe(5);
    memo("abcd");
    expect(computed).toBe(6);
  });

  it("gives the same object for the same key while it is remembered", () => {
    const memo = boundedMemo(2, (key) => ({ key }));
    const first = memo("x");
    expect(memo("x")).toBe(first);
    memo("y");
    memo("z");
    expect(memo("x")).not.toBe(first);
  });
});
