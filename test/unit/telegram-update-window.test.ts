import fc from "fast-check";
import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { ChatLanes, chatLane } from "../../src/platforms/telegram/chat-lanes.ts";
import { UpdateWindow } from "../../src/platforms/telegram/update-window.ts";

describe("the update window", () => {
  it("never moves the offset past an update being taken, never back, and past all once all are taken", () => {
    // A poll returns ids from the offset up; updates finish in any order.
    const step = fc.oneof(
      fc.record({ poll: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 8 }) }),
      fc.record({ finish: fc.nat({ max: 60 }) }),
    );
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
        fc.array(step),
        (start, steps) => {
          const window = new UpdateWindow(start);
          const pending = new Set<number>();
          const given = new Set<number>();
          let last = start ?? -1;
          for (const s of steps) {
            if ("poll" in s) {
              for (const id of s.poll) {
                const below = window.offset !== undefined && id < window.offset;
                const fresh = window.admit(id);
                expect(fresh).toBe(!below && !given.has(id));
                if (fresh) {
                  given.add(id);
                  pending.add(id);
                }
              }
            } else {
              const ids = [...pending];
              const id = ids[s.finish % Math.max(ids.length, 1)];
              if (id === undefined) continue;
              window.finish(id);
              pending.delete(id);
            }
            const offset = window.offset;
            if (offset !== undefined) {
              expect(offset).toBeGreaterThanOrEqual(last);
              last = offset;
              for (const id of pending) expect(offset).toBeLessThanOrEqual(id);
            }
            expect(window.pending).toBe(pending.size);
          }
          if (pending.size === 0 && given.size > 0) {
            expect(window.offset).toBe(Math.max(...given) + 1);
          }
        },
      ),
    );
  });

  it("gives each update out once, however often polls return it", () => {
    const window = new UpdateWindow(100);
    expect(window.admit(99)).toBe(false);
    expect(window.admit(100)).toBe(true);
    expect(window.admit(101)).toBe(true);
    expect(window.admit(100)).toBe(false);
    expect(window.finish(101)).toBe(false);
    expect(window.admit(101)).toBe(false);
    expect(window.offset).toBe(100);
    expect(window.finish(100)).toBe(true);
    expect(window.offset).toBe(102);
    expect(window.admit(101)).toBe(false);
  });

  it("refuses ids Telegram could not have sent", () => {
    const window = new UpdateWindow();
    for (const id of [-1, 1.5, Number.NaN, 2 ** 60, "7" as unknown as number]) {
      expect(window.admit(id)).toBe(false);
    }
    expect(window.admit(2 ** 52)).toBe(true);
    expect(window.finish(2 ** 52)).toBe(true);
    expect(window.offset).toBe(2 ** 52 + 1);
  });
});

describe("chat lanes", () => {
  it("takes each lane's items in order, one at a time, and lanes beside each other", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), fc.nat({ max: 3 })), { maxLength: 30 }),
        async (items) => {
          const seen = new Map<string, number[]>();
          const running = new Set<string>();
          let together = 0;
          const lanes = new ChatLanes<{ lane: string; n: number; wait: number }>(async (item) => {
            expect(running.has(item.lane)).toBe(false);
            running.add(item.lane);
            together = Math.max(together, running.size);
            await new Promise((resolve) => setTimeout(resolve, item.wait));
            running.delete(item.lane);
            seen.set(item.lane, [...(seen.get(item.lane) ?? []), item.n]);
            if (item.wait === 3) throw new Error("a failing item does not stop its lane");
          });
          for (const [n, [lane, wait]] of items.entries()) lanes.push(lane, { lane, n, wait });
          await lanes.idle();
          for (const lane of ["a", "b", "c"]) {
            const expected = items.flatMap(([l], n) => (l === lane ? [n] : []));
            expect(seen.get(lane) ?? []).toEqual(expected);
          }
          expect(lanes.busy).toBe(0);
          // Every lane's first item starts before any of them ends: lanes never wait on each other.
          expect(together).toBe(new Set(items.map(([lane]) => lane)).size);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("puts an update in its chat's lane, reading any JSON without throwing", () => {
    const chat = { id: -100123, type: "supergroup" };
    expect(chatLane({ update_id: 1, message: { chat } } as unknown as Update)).toBe("chat:-100123");
    expect(
      chatLane({
        update_id: 1,
        callback_query: { from: { id: 5 }, message: { chat } },
      } as unknown as Update),
    ).toBe("chat:-100123");
    expect(
      chatLane({
        update_id: 1,
        callback_query: { from: { id: 5 }, inline_message_id: "x" },
      } as unknown as Update),
    ).toBe("user:5");
    expect(chatLane({ update_id: 1 } as Update)).toBe("other");
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        expect(typeof chatLane({ update_id: 1, message: json } as unknown as Update)).toBe(
          "string",
        );
        expect(typeof chatLane(json as unknown as Update)).toBe("string");
      }),
    );
  });
});
