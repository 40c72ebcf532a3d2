import { CONSOLE_DEFAULT_HOST, type SwitchyardConfig } from "../core/config/index.ts";
import { type OpsServer, startOpsServer } from "../observability/http.ts";
import type { Logger } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import { mountConsole, turnActivity } from "../ops/console/mount.ts";
import type { ActivityStore } from "../store/activity-store.ts";
import type { Switchyard, SwitchyardOptions } from "./app.ts";
import type { Host } from "./host.ts";

/**
 * The turn worker's hooks, counting into the Prometheus metrics, and
 * recording each turn for the operator console once `activity` has a store
 * (written whether or not the console is served).
 */
export function turnObserver(
  metrics: Metrics,
  activity: () => ActivityStore | undefined = () => undefined,
): NonNullable<SwitchyardOptions["observe"]> {
  return {
    queueWait: (ms) => metrics.observeQueueWait(ms / 1000),
    feedback: (vote) => metrics.countFeedback(vote),
    toolCall: (tool, outcome) => metrics.countToolCall(tool, outcome),
    turn: (info) => {
      const { result, outcome, ms, contractChanged } = info;
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
      activity()
        ?.record(
          info.address,
          turnActivity({ result, outcome, ms, ...(info.turnId ? { turnId: info.turnId } : {}) }),
        )
        .catch(() => {});
    },
  };
}

/**
 * The metrics server when `port` asks for one (a port in use is a warning,
 * not a failed start), and the operator console on it when the config
 * enables it.
 */
export async function serveOps(
  app: Switchyard,
  bot: {
    readonly port: number | undefined;
    /** The environment's choice of address (`SWITCHYARD_METRICS_HOST`); see {@link opsHost}. */
    readonly host: string | undefined;
    readonly config: SwitchyardConfig;
    readonly tools: Host;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly metrics: Metrics;
    readonly logger: Logger;
  },
): Promise<OpsServer | undefined> {
  const { port = 0, logger } = bot;
  if (port <= 0) return undefined;
  const host = opsHost(bot.host, bot.config.console);
  let ops: OpsServer;
  try {
    ops = await startOpsServer({
      port,
      ...(host === undefined ? {} : { host }),
      metrics: bot.metrics,
      ready: () => app.redis.status === "ready",
    });
  } catch (error) {
    logger.warn({ port, host, error: (error as Error).message }, "metrics server not started");
    return undefined;
  }
  if (bot.config.console.enabled) {
    // A console that fails to mount fails the start: the server must not outlive it.
    await mountConsole(ops, {
      env: bot.env,
      redis: app.redis,
      prefix: app.store.keys.prefix,
      sources: app.sources,
      queue: app.queue,
      host: bot.tools,
      logger,
      queueMode: (address) => app.queueBehaviour(address).mode,
    }).catch(async (error: unknown) => {
      await ops.close();
      throw error;
    });
  }
  return ops;
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
