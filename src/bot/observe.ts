import type { SwitchyardOptions } from "../app.ts";
import { CONSOLE_DEFAULT_HOST } from "../core/config/index.ts";
import { type OpsServer, startOpsServer } from "../observability/http.ts";
import type { Logger } from "../observability/logger.ts";
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

/** The metrics (and console) server when `port` asks for one; a port in use is a warning, not a failed start. */
export async function startOps(options: {
  readonly port: number | undefined;
  readonly host: string | undefined;
  readonly metrics: Metrics;
  readonly ready: () => boolean;
  readonly logger: Logger;
}): Promise<OpsServer | undefined> {
  const { port = 0, host, logger } = options;
  if (port <= 0) return undefined;
  try {
    return await startOpsServer({
      port,
      ...(host === undefined ? {} : { host }),
      metrics: options.metrics,
      ready: options.ready,
    });
  } catch (error) {
    logger.warn({ port, host, error: (error as Error).message }, "metrics server not started");
    return undefined;
  }
}

/**
 * Where the ops server listens: the environment's choice, else the config's,
 * else this machine only when it serves the console (a page that can reset
 * conversations should not face every network by default), else every
 * interface (undefined), because probes and Prometheus reach a pod by its IP.
 */
export function opsHost(
  fromEnv: string | undefined,
  console: { readonly enabled: boolean; readonly host?: string },
): string | undefined {
  return fromEnv ?? console.host ?? (console.enabled ? CONSOLE_DEFAULT_HOST : undefined);
}
