import { runtimeLayer } from "../../src/core/availability/runtime-spec.ts";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { type OpsServer, startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { mountConsole, turnActivity } from "../../src/ops/console/mount.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { Host } from "../../src/runtime/host.ts";
import { ActivityStore } from "../../src/store/activity-store.ts";
import { type Pipeline, startPipeline } from "./pipeline.ts";

/** A token as an operator would set it. */
export const CONSOLE_TOKEN = "test-console-token-4f1c2a9e";

export interface ConsoleBot {
  readonly pipe: Pipeline;
  readonly ops: OpsServer;
  /** `http://127.0.0.1:<port>/console` */
  readonly url: string;
  readonly warnings: string[];
  close(): Promise<void>;
}

/**
 * A running bot with its console: the process's real tools (a Host over the
 * empty config, as `switchyard tools` builds with no config file), the queue,
 * a worker against the fake model, and the ops server with the console
 * mounted as `switchyard start` mounts it, reading `config` as its config file.
 */
export async function startConsoleBot(
  env: Record<string, string> = {},
  config: SwitchyardConfig = EMPTY_CONFIG,
): Promise<ConsoleBot> {
  const host = new Host({ env: {}, config: EMPTY_CONFIG });
  await host.start();
  let activity: ActivityStore | undefined;
  const pipe = await startPipeline({
    registry: host.registry,
    capabilities: host.capabilities,
    config: () => config,
    observe: {
      turn: ({ address, result, outcome, ms, turnId }) => {
        void activity?.record(
          address,
          turnActivity({ result, outcome, ms, ...(turnId ? { turnId } : {}) }),
        );
      },
    },
  });
  activity = new ActivityStore(pipe.app.redis, pipe.app.store.keys);
  const ops = await startOpsServer({
    port: 0,
    host: "127.0.0.1",
    metrics: new Metrics(),
    ready: () => true,
  });
  const warnings: string[] = [];
  const logger = { warn: (_: object, message: string) => warnings.push(message), info: () => {} };
  await mountConsole(ops, {
    env: { SWITCHYARD_CONSOLE_TOKEN: CONSOLE_TOKEN, ...env },
    redis: pipe.app.redis,
    prefix: pipe.prefix,
    sources: {
      store: pipe.app.store,
      registry: host.registry,
      capabilities: host.capabilities,
      config: () => config,
      runtime: runtimeLayer(undefined, undefined),
      warnings: new WarnOnce({ warn: () => {} }),
    },
    queue: pipe.app.queue,
    host,
    queueMode: () => "collect",
    logger,
  });
  return {
    pipe,
    ops,
    url: `http://127.0.0.1:${ops.port}/console`,
    warnings,
    async close() {
      await ops.close();
      await pipe.close();
      await host.close();
    },
  };
}

/** Basic auth as a browser sends it: any user name, the token as password. */
export function basicAuth(token = CONSOLE_TOKEN): string {
  return `Basic ${Buffer.from(`operator:${token}`).toString("base64")}`;
}
