import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import type { DeliveryEnvironment } from "../../src/delivery/delivery-environment.ts";
import { openTurnStream, StreamState } from "../../src/delivery/stream-state.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("stream-state");

const DAY_MS = 86_400_000;

const address: ConversationAddress = {
  platform: "telegram",
  workspace: "42",
  channel: "42",
  conversation: "42",
};

/** Writes a turn's stream makes: drafts or edits shown, the post recorded, a native start. */
const writes = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("shown" as const), text: fc.string({ maxLength: 30 }) }),
    fc.record({
      kind: fc.constant("posted" as const),
      ref: fc.string({ minLength: 1, maxLength: 8 }),
      text: fc.string({ maxLength: 30 }),
      native: fc.boolean(),
    }),
    fc.record({ kind: fc.constant("starting" as const), at: fc.integer({ min: 1, max: 2 ** 40 }) }),
  ),
  { minLength: 1, maxLength: 12 },
);

describe("a turn's stream record", () => {
  it("reads back the last of every field written, and expires within a day of its first write", async () => {
    const streams = new StreamState(db.redis, new KeyScheme(db.prefix));
    const key = new KeyScheme(db.prefix).turnStream(address, "");
    let run = 0;
    await fc.assert(
      fc.asyncProperty(writes, async (made) => {
        run += 1;
        const turnId = `t${run}`;
        let expected: { ref?: string; text?: string; native?: true; starting?: number } = {};
        for (const write of made) {
          if (write.kind === "shown") {
            await streams.shown(address, turnId, write.text);
            expected = { ...expected, text: write.text };
          } else if (write.kind === "posted") {
            await streams.posted(address, turnId, write.ref, write.text, write.native);
            expected = {
              ...expected,
              ref: write.ref,
              text: write.text,
              ...(write.native ? { native: true } : {}),
            };
          } else {
            await streams.starting(address, turnId, write.at);
            expected = { ...expected, starting: write.at };
          }
        }
        expect(await streams.read(address, turnId)).toEqual(expected);
        const ttl = await db.redis.pttl(`${key}${turnId}`);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(DAY_MS);
      }),
      { numRuns: 40 },
    );
  });

  it("keeps the TTL its first write gave it while a draft's text is written again", async () => {
    const streams = new StreamState(db.redis, new KeyScheme(db.prefix));
    const key = new KeyScheme(db.prefix).turnStream(address, "t1");
    await streams.shown(address, "t1", "Sure");
    // As if the first write were an hour old: later drafts must not extend it.
    await db.redis.pexpire(key, 3_600_000);
    await streams.shown(address, "t1", "Sure, here");
    await streams.shown(address, "t1", "Sure, here it is");
    expect(await db.redis.pttl(key)).toBeLessThanOrEqual(3_600_000);
    expect((await streams.read(address, "t1")).text).toBe("Sure, here it is");
  });

  it("tells a resumed turn whether its crashed run showed the person text, in a message or a draft", async () => {
    const keys = new KeyScheme(db.prefix);
    const streams = new StreamState(db.redis, keys);
    // What openTurnStream reads: the stream records in Redis, and a channel that edits.
    const env = {
      inbox: { redis: db.redis },
      store: { keys },
      outbounds: { telegram: new RecordingOutbound() },
      streamEditMs: 100,
    } as unknown as Pick<DeliveryEnvironment, "inbox" | "store" | "outbounds" | "streamEditMs">;
    const target = { ...address };
    const shown = async (turnId: string, resumed: boolean) =>
      (await openTurnStream(env, address, turnId, target, resumed)).shown;
    await streams.shown(address, "draft", "Sure, here");
    await streams.posted(address, "posted", "msg-1", "Sure");
    await streams.shown(address, "blank", "  ");
    expect(await shown("draft", true)).toBe(true);
    expect(await shown("posted", true)).toBe(true);
    expect(await shown("blank", true)).toBe(false);
    expect(await shown("nothing", true)).toBe(false);
    // A turn begun in this run has shown nothing yet, whatever a key holds.
    expect(await shown("posted", false)).toBe(false);
  });
});
