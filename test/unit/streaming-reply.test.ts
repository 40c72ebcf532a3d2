import { describe, expect, it } from "vitest";
import { StreamingReply } from "../../src/delivery/streaming.ts";
import { TargetGoneError } from "../../src/ports/target-gone.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";

const target = { platform: "telegram", workspace: "1", channel: "1", conversation: "1" };

/** Lets every post and edit already handed to the reply run to its end. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A reply that sends every update at once, under `key`. */
const reply = (outbound: RecordingOutbound, key: string, signal?: AbortSignal) =>
  new StreamingReply({
    outbound,
    target,
    idempotencyKey: key,
    intervalMs: 0,
    onPosted: async () => {},
    ...(signal ? { signal } : {}),
  });

describe("a streamed answer", () => {
  it("posts the first text and edits it with what follows", async () => {
    const outbound = new RecordingOutbound();
    const streamed = reply(outbound, "turn-1-0");
    streamed.update("The answer");
    await settled();
    streamed.update("The answer so far");
    await settled();
    await streamed.close();
    expect(outbound.visible()).toEqual(["The answer so far"]);
  });

  it("shows the chunks that arrive in one tick as one post of the newest text", async () => {
    const outbound = new RecordingOutbound();
    const streamed = reply(outbound, "turn-3-0");
    for (const text of ["The", "The answer", "The answer, whole"]) streamed.update(text);
    await settled();
    await streamed.close();
    expect(outbound.calls.map((c) => c.kind)).toEqual(["post"]);
    expect(outbound.visible()).toEqual(["The answer, whole"]);
  });

  it("still posts the text that was due when the turn closes the stream in the same tick", async () => {
    const outbound = new RecordingOutbound();
    const streamed = reply(outbound, "turn-4-0");
    streamed.update("Short answer");
    expect(await streamed.close()).toBeDefined();
    expect(outbound.visible()).toEqual(["Short answer"]);
  });

  it("shows nothing more once the turn's lease is lost: the run that took the turn over answers", async () => {
    const outbound = new RecordingOutbound();
    const lease = new AbortController();
    const streamed = reply(outbound, "turn-2-0", lease.signal);
    streamed.update("The answer");
    await settled();
    lease.abort();
    // The model's stream goes on until the abort reaches it; this run's late edits must not
    // land over the final answer the new run delivers into the same message.
    streamed.update("The answer so far");
    await settled();
    await streamed.close();
    expect(outbound.visible()).toEqual(["The answer"]);
    expect(outbound.calls.filter((c) => c.kind === "edit")).toEqual([]);
  });

  it("stops trying once the platform says the conversation is gone for the bot", async () => {
    const outbound = new RecordingOutbound();
    let tries = 0;
    outbound.post = async () => {
      tries += 1;
      throw new TargetGoneError("Telegram", "1", "Forbidden: bot was kicked from the group chat");
    };
    const streamed = reply(outbound, "turn-3-0");
    for (const text of ["The", "The answer", "The answer so far"]) {
      streamed.update(text);
      await settled();
    }
    expect(await streamed.close()).toBeUndefined();
    expect(tries).toBe(1);
  });
});
