import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPipeline } from "../support/pipeline.ts";
import { parentOf, startTestTracing, type TestTracing } from "../support/tracing.ts";

let tracing: TestTracing;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

describe("a vote in the trace", () => {
  it("lands in the trace of the turn whose answer it rates, as a span with the vote as an event", async () => {
    const pipe = await startPipeline();
    try {
      pipe.fake.script({ content: "Rated answer." });
      const message = pipe.message("hi");
      await pipe.app.queue.enqueue(message);
      await pipe.posts(1);
      const id = (await pipe.app.store.feedback.last(message)) as string;
      expect(id).toMatch(/^[a-z0-9]{12}$/);
      for (const vote of ["up", "down"] as const) {
        await pipe.app.feedback.vote({
          id,
          vote,
          actor: { id: "console-user", isPlatformAdmin: true },
          platform: "console",
        });
      }
      const spans = tracing.spans();
      const turn = spans.find((s) => s.name === "switchyard.turn");
      const votes = spans.filter((s) => s.name === "switchyard.feedback");
      expect(votes).toHaveLength(2);
      for (const span of votes) {
        expect(span.spanContext().traceId).toBe(turn?.spanContext().traceId);
        // A child of the delivery, inside the turn.
        const parent = spans.find((s) => s.spanContext().spanId === parentOf(span));
        expect(parent?.name).toBe("switchyard.deliver");
      }
      expect(votes.map((s) => s.events.map((e) => [e.name, e.attributes]))).toEqual([
        [
          [
            "switchyard.feedback.vote",
            expect.objectContaining({
              "switchyard.feedback.vote": "up",
              "switchyard.feedback.previous": "none",
            }),
          ],
        ],
        [
          [
            "switchyard.feedback.vote",
            expect.objectContaining({
              "switchyard.feedback.vote": "down",
              "switchyard.feedback.previous": "up",
            }),
          ],
        ],
      ]);
    } finally {
      await pipe.close();
    }
  });
});
