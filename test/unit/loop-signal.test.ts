import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { runTurn } from "../../src/core/agent/loop.ts";
import type { Provider, ProviderRequest } from "../../src/core/agent/provider.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { freeze } from "../support/tools.ts";

const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0 };

/** A turn whose model answers at once, or waits for `hold` (seeing the request's signal). */
function turn(signal: AbortSignal, interrupt: AbortSignal, provider: Provider) {
  const registry = new ToolRegistry([]);
  return runTurn({
    registry,
    contract: freeze(registry),
    system: "test",
    history: [],
    turn: [{ role: "user", content: "hi" }],
    step: 0,
    loaded: [],
    provider,
    cacheKey: "k",
    maxSteps: 4,
    signal,
    interrupt,
    runTool: async () => ({ outcome: "ok", output: "" }),
    commit: async () => {},
    onToolCall: () => {},
    now: () => 0,
  });
}

const answering: Provider = {
  complete: async () => ({ content: "done", toolCalls: [], finishReason: "stop", usage }),
};

describe("the turn's signal", () => {
  it("leaves no listener on the lease's signal, which outlives the turn, after many turns", async () => {
    const lease = new AbortController();
    for (let i = 0; i < 20; i++) await turn(lease.signal, new AbortController().signal, answering);
    expect(getEventListeners(lease.signal, "abort")).toHaveLength(0);
  });

  it("aborts the model request with the reason of whichever signal fired", async () => {
    for (const which of ["lease", "interrupt"] as const) {
      const lease = new AbortController();
      const interrupt = new AbortController();
      let seen: AbortSignal | undefined;
      const waiting: Provider = {
        complete: (request: ProviderRequest) =>
          new Promise((_, reject) => {
            seen = request.signal;
            request.signal?.addEventListener("abort", () => reject(request.signal?.reason));
            (which === "lease" ? lease : interrupt).abort(which);
          }),
      };
      const result = await turn(lease.signal, interrupt.signal, waiting).catch((e) => e);
      expect(seen?.aborted).toBe(true);
      expect(seen?.reason).toBe(which);
      if (which === "interrupt") expect(result.stop).toBe("interrupted");
      expect(getEventListeners(lease.signal, "abort")).toHaveLength(0);
    }
  });
});
