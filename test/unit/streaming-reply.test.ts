import { describe, expect, it } from "vitest";
import { StreamingReply } from "../../src/workers/streaming.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";

const target = { platform: "telegram", workspace: "1", channel: "1", conversation: "1" };

/** Lets every post and edit already handed to the reply run to its end. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("a streamed answer", () => {
  it("posts the first text and edits it with what follows", async () => {
    const outbound = new RecordingOutbound();
    const reply = new StreamingReply({
      outbound,
      target,
      idempotencyKey: "turn-1-0",
      intervalMs: 0,
      onPosted: async () => {},
    });
    reply.update("The answer");
    await settled();
    reply.update("The answer so far");
    await settled();
    await reply.close();
    expect(outbound.visible()).toEqual(["The answer so far"]);
  });

  it("shows nothing more once the turn's lease is lost: the run that took the turn over answers", async () => {
    const outbound = new RecordingOutbound();
    const lease = new AbortController();
    const reply = new StreamingReply({
      outbound,
      target,
      idempotencyKey: "turn-2-0",
      intervalMs: 0,
      onPosted: async () => {},
      signal: lease.signal,
    });
    reply.update("The answer");
    await settled();
    lease.abort();
    // The model's stream goes on until the abort reaches it; this run's late edits must not
    // land over the final answer the new run delivers into the same message.
    reply.update("The answer so far");
    await settled();
    await reply.close();
    expect(outbound.visible()).toEqual(["The answer"]);
    expect(outbound.calls.filter((c) => c.kind === "edit")).toEqual([]);
  });
});
