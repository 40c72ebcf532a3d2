import { fillEnvTemplate, MissingEnvError } from "../core/config/env-template.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { IngressGate } from "../ingress/access/gate.ts";
import { HOOKS_PATH, hookEndpoint } from "../ingress/hook-endpoint.ts";
import type { OpsServer } from "../observability/http.ts";
import { registerSecret } from "../observability/logger.ts";
import { HookDeliveries } from "../store/hook-deliveries.ts";
import type { Switchyard } from "./app.ts";

/**
 * Serves `POST /hooks/<name>` on the process's HTTP server (the one with
 * `/healthz` and `/metrics`), in a process that takes messages. The hooks
 * are read from the live config at each call, so a reload adds or drops
 * them; each secret is registered with the log redaction at start and
 * again whenever it is read. A hook whose secret variable is not set is
 * warned about here and refused (503) until it is.
 */
export function serveHooks(
  app: Switchyard,
  ops: OpsServer | undefined,
  bot: {
    readonly config: () => SwitchyardConfig;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly logger: LoggerPort;
    /** The platforms this bot runs: a hook aimed at another would be queued and never answered. */
    readonly platforms: readonly string[];
    readonly refused?: (reason: string) => void;
  },
): void {
  const hooks = bot.config().hooks;
  for (const hook of hooks) {
    if (!bot.platforms.includes(hook.target.platform)) {
      bot.logger.warn(
        `hook "${hook.name}" targets ${hook.target.platform}, which this bot does not run; its answers would go nowhere. Fix the hook's target.platform, or add the channel.`,
        { hook: hook.name, platforms: bot.platforms },
      );
    }
    try {
      registerSecret(fillEnvTemplate(hook.secret, bot.env, `hooks: ${hook.name}'s secret`));
    } catch (error) {
      if (!(error instanceof MissingEnvError)) throw error;
      bot.logger.warn("a hook's secret is not set; its calls are refused until it is", {
        hook: hook.name,
        error: error.message,
      });
    }
  }
  if (ops === undefined) {
    if (hooks.length > 0) {
      bot.logger.warn(
        "hooks are declared but not served: they are served on the metrics port; set SWITCHYARD_METRICS_PORT (or metricsPort) to a port",
        { hooks: hooks.map((h) => h.name) },
      );
    }
    return;
  }
  ops.mount(
    HOOKS_PATH,
    hookEndpoint({
      hooks: () => bot.config().hooks,
      env: bot.env,
      gate: new IngressGate({
        store: app.store,
        config: bot.config,
        ...(bot.refused ? { refused: bot.refused } : {}),
      }),
      enqueue: app.queue,
      deliveries: new HookDeliveries(app.redis, app.store.keys),
      logger: bot.logger,
      onSecret: registerSecret,
    }),
  );
}
