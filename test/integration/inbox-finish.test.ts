import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dayPeriod, monthPeriod } from "../../src/core/budget/usage.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { UsageStore } from "../../src/store/usage-store.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("inbox-finish");

describe("a turn's end in the inbox", () => {
  it("takes the messages it answered, in order, counts its usage once, and lets go only of an empty inbox", async () => {
    const keys = new KeyScheme(db.prefix);
    const inbox = new Inbox(db.redis, keys);
    const usage = new UsageStore(db.redis, keys);
    const now = Date.UTC(2026, 11, 6, 12);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 3 }),
        async (waiting, consumed, prompt, runs) => {
          run += 1;
          const address: ConversationAddress = {
            platform: "telegram",
            workspace: "1",
            channel: "1",
            conversation: `c${run}`,
          };
          for (let n = 0; n < waiting; n++) {
            await inbox.push(
              { ...address, user: "1", text: `m${n}`, attachments: [], eventId: `e${n}`, time: n },
              now,
            );
          }
          const token = `job-${run}|w|lease`;
          expect(await inbox.acquire(address, token, 60_000)).toBe(true);
          await db.redis.set(inbox.keysOf(address).checkpoint, "{}");
          const counting = usage.conversationCounting(
            address,
            { promptTokens: prompt, completionTokens: 7, cachedTokens: 0 },
            0,
            now,
          );
          const taken = Math.min(consumed, waiting);
          // The same end sent again (its answer was lost) ends the turn once.
          for (let i = 0; i < runs; i++) {
            const { left, answered } = await inbox.finish(address, token, consumed, counting);
            // Run again after it let go of an emptied inbox's lease, it finds the lease gone.
            expect(left).toBe(i > 0 && waiting === taken ? -1 : waiting - taken);
            expect(answered.map((m) => m.text)).toEqual(
              i === 0 ? Array.from({ length: taken }, (_, n) => `m${n}`) : [],
            );
          }
          expect((await inbox.pending(address)).map((m) => m.text)).toEqual(
            Array.from({ length: waiting - taken }, (_, n) => `m${n + taken}`),
          );
          expect(await db.redis.exists(inbox.keysOf(address).lease)).toBe(waiting > taken ? 1 : 0);
          const owner = { kind: "conversation", address } as const;
          for (const period of [dayPeriod(now), monthPeriod(now)]) {
            expect(await usage.read(owner, period)).toEqual({
              prompt,
              cached: 0,
              completion: 7,
              turns: 1,
              costMicros: 0,
            });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
