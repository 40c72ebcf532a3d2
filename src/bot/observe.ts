import type { SwitchyardOptions } from "../app.ts";
import type { Metrics } from "../observability/metrics.ts";

/** The turn worker's hooks, counting into the Prometheus metrics. */
export function turnObserver(metrics: Metrics): NonNullable<SwitchyardOptions["observe"]> {
  return {
    queueWait: (ms) => metrics.observeQueueWait(ms / 1000),
    toolCall: (tool, outcome) => metrics.countToolCall(tool, outcome),
    turn: ({ result, outcome, ms, contractChanged }) => {
      metrics.observeTurn({
        seconds: ms / 1000,
        outcome: outcome as "answer",
        steps: result?.steps ?? 0,
        modelSeconds: (result?.modelMs ?? 0) / 1000,
        toolSeconds: (result?.toolMs ?? 0) / 1000,
      });
      if (result) {
        metrics.countTokens({
          prompt: result.usage.promptTokens,
          cached: result.usage.cachedTokens,
          completion: result.usage.completionTokens,
        });
      }
      if (contractChanged) metrics.countContractChange();
    },
  };
}
