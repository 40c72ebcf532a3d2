import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_MODEL_LIMITS } from "../../src/core/config/index.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { API_KEY, ask, failureOf, type Harness, harness } from "../support/provider.ts";

/** Long enough that a test only ends through the clock under test (or the signal). */
const NEVER = 600_000;

describe("model call timeouts", () => {
  let fake: FakeOpenAI;
  let h: Harness;

  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: API_KEY });
    h = harness(() => fake);
  });

  afterEach(async () => {
    await fake.close();
    expect(JSON.stringify(h.warnings)).not.toContain(API_KEY);
  });

  it("answers a server that never sends headers once the first-byte timeout passes, without retrying", async () => {
    fake.setResponder(() => ({ neverAnswer: true }));

    const error = await failureOf(
      h.provider({ limits: { firstByteMs: 300, idleMs: NEVER } }).complete(ask()),
    );

    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(
      `The model did not start its reply within 300 ms, so I stopped waiting. Please try again in a moment. If this keeps happening, the model server at ${fake.url} is overloaded or down, or this model needs longer before it starts: raise SWITCHYARD_MODEL_FIRST_BYTE_MS (model.first_byte_ms).`,
    );
    expect(fake.requests).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
  });

  it("counts headers followed by silence as a reply that never started", async () => {
    fake.script({ content: "never shown", stallAfterChunks: 0 });

    const error = await failureOf(
      h.provider({ limits: { firstByteMs: 300, idleMs: NEVER } }).complete(ask()),
    );

    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(/did not start its reply within 300 ms/);
  });

  it("gives up on a stream that stalls mid-reply, keeping the text the person already saw", async () => {
    fake.script({
      content: "Here is the plan: first we pack, then we leave.",
      stallAfterChunks: 5,
    });
    const seen: string[] = [];

    const error = await failureOf(
      h
        .provider({ limits: { firstByteMs: NEVER, idleMs: 300 } })
        .complete(ask({ onText: (soFar) => seen.push(soFar) })),
    );

    expect(error.kind).toBe("timeout");
    const shown = seen.at(-1) ?? "";
    expect(shown).toBe("Here is the plan: ");
    expect(error.message).toBe(
      `Here is the plan: \n\n(The model went quiet in the middle of its reply (nothing for 300 ms), so I stopped waiting. Please try again. If this keeps happening, check the model server at ${fake.url}, or raise SWITCHYARD_MODEL_IDLE_MS (model.idle_ms).)`,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry a stall even when no text was shown", async () => {
    fake.setResponder(() => ({
      toolCalls: [{ name: "write_note", arguments: { text: "a long note" } }],
      stallAfterChunks: 2,
    }));

    const error = await failureOf(
      h.provider({ limits: { firstByteMs: NEVER, idleMs: 300 } }).complete(ask()),
    );

    expect(error.kind).toBe("timeout");
    expect(fake.requests).toHaveLength(1);
  });

  it("ends a call whose server sends keep-alives forever when the call's budget runs out", async () => {
    fake.script({ content: "one two three four", stallAfterChunks: 2, keepAliveMs: 50 });

    const error = await failureOf(
      h.provider({ limits: { firstByteMs: NEVER, idleMs: 500, callMs: 1_500 } }).complete(ask()),
    );

    expect(error.kind).toBe("timeout");
    expect(error.message).toMatch(
      /^one \n\n\(The model took longer than 1\.5 s on one request, so I stopped it\. Please try again, or ask for something smaller\. \(The limit is SWITCHYARD_MODEL_CALL_MS \(model\.call_ms\)\.\)\)$/,
    );
  });

  it("returns a finished reply whose server then holds the stream open", async () => {
    fake.script({ content: "All done.", stallAfterChunks: 99 });

    const reply = await h.provider({ limits: { firstByteMs: NEVER, idleMs: 300 } }).complete(ask());

    expect(reply.content).toBe("All done.");
    expect(reply.finishReason).toBe("stop");
  });

  it("does not retry when the advertised wait would pass the call's budget", async () => {
    fake.setResponder(() => ({ status: 503, headers: { "retry-after": "5" } }));

    const error = await failureOf(h.provider({ limits: { callMs: 2_000 } }).complete(ask()));

    expect(error.kind).toBe("server");
    expect(error.message).toMatch(/server error \(HTTP 503\)/);
    expect(fake.requests).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
    expect(h.warnings.at(-1)?.message).toMatch(/not retrying: the wait of 5000 ms would pass/);
  });

  it("bounds every retry by what is left of the budget, so retries never multiply the wait", async () => {
    // Each attempt fails after 400 ms; a budget of 1 s has room for two at most, whatever the backoff.
    fake.setResponder(() => ({ status: 502, delayMs: 400 }));

    const error = await failureOf(
      h.provider({ limits: { callMs: 1_000 }, sleep: async () => {} }).complete(ask()),
    );

    // Without the budget this would be five attempts.
    expect(["server", "timeout"]).toContain(error.kind);
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
    expect(fake.requests.length).toBeLessThanOrEqual(2);
  });

  it("still cancels a stalled call at once when the turn's signal aborts", async () => {
    fake.script({ content: "a reply that stalls after a word or two", stallAfterChunks: 2 });
    const controller = new AbortController();

    const error = await failureOf(
      h
        .provider({ limits: { firstByteMs: NEVER, idleMs: NEVER, callMs: NEVER } })
        .complete(ask({ signal: controller.signal, onText: () => controller.abort() })),
    );

    expect(error.kind).toBe("aborted");
  });

  it("still cancels a call waiting for headers at once when the turn's signal aborts", async () => {
    fake.script({ neverAnswer: true });
    const controller = new AbortController();
    const pending = h
      .provider({ limits: { firstByteMs: NEVER, callMs: NEVER } })
      .complete(ask({ signal: controller.signal }));
    await expect.poll(() => fake.requests.length).toBe(1);
    controller.abort();

    expect((await failureOf(pending)).kind).toBe("aborted");
  });

  it("reads new limits on every call, so a reloaded config applies without a restart", async () => {
    let limits = { ...DEFAULT_MODEL_LIMITS, firstByteMs: NEVER };
    const provider = h.provider({ limits: () => limits });
    fake.script({ content: "fast enough" }, { neverAnswer: true });

    expect((await provider.complete(ask())).content).toBe("fast enough");
    limits = { ...limits, firstByteMs: 200 };
    expect((await failureOf(provider.complete(ask()))).message).toMatch(/within 200 ms/);
  });
});
