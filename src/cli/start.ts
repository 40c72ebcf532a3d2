import { type ParseArgsConfig, parseArgs } from "node:util";
import { runtimeLayer } from "../core/availability/runtime-spec.ts";
import { parseLoadMode } from "../core/loading/modes.ts";
import { silentLogger } from "../core/logger.ts";
import { createLogger, loggerPort } from "../observability/logger.ts";
import { Metrics } from "../observability/metrics.ts";
import { tracingWanted } from "../observability/tracing-wanted.ts";
import { EMPTY_CONFIG, parseConfig } from "../platforms/config.ts";
import { atTerminal, terminalLogLevel } from "../platforms/terminal/terminal.ts";
import { configPath, LiveConfig, readConfigText } from "../runtime/config-file.ts";
import { createBot } from "../runtime/create-bot.ts";
import { queueFromEnv } from "../runtime/queue-settings.ts";
import {
  hostFromEnv,
  numberFromEnv,
  platformChannels,
  portFromEnv,
  providerFromEnv,
  roleOf,
} from "./platforms.ts";

export { StartOptionError } from "./platforms.ts";

const HELP = `Usage: switchyard start [options]

Runs the bot. With no platform credentials it runs the console channel: type
messages on stdin, answers print on stdout, /tools works; end of input exits.

Options:
  --role all|ingress|worker   all (default: $SWITCHYARD_ROLE, else all): channels and turns
                              in this process; ingress: channels only (a platform must be
                              configured); worker: turns only
  --config FILE               The config file (default: $SWITCHYARD_CONFIG, else ./switchyard.yaml)
  --tools SPEC                Runtime decisions (on, off or ask), e.g. 'web_search=off' (default: $SWITCHYARD_TOOLS)
  --mode MODE                 Load mode: full, default, minimal (pi), discover (omp)
  --plugin FILE|PACKAGE       Load tools, skills and channels from a module (repeatable)
  -h, --help                  This help

Environment:
  SWITCHYARD_ROLE             The role when --role is not given: all, ingress or worker
  REDIS_URL                   Redis (default: 127.0.0.1:6379, else a local redis-server is started)
  REDIS_CLUSTER_NODES         A Redis Cluster instead: host:port,host:port (seed nodes)
  REDIS_SENTINELS, REDIS_SENTINEL_NAME   Sentinel instead: host:port,host:port and the master group
  REDIS_USERNAME, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD, REDIS_TLS   For the cluster or Sentinel nodes
  SWITCHYARD_QUEUE_SHARDS     Conversation queue shards (default 1; on a cluster, one per master)
  SWITCHYARD_QUEUE_CONSUME    The shards this process works on, e.g. 0,1 or 0-3 (default: all)
  OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL   The model (any OpenAI-compatible server)
  SWITCHYARD_MODEL_FIRST_BYTE_MS, _IDLE_MS, _CALL_MS   Model timeouts (default 60000, 30000, 300000)
  SWITCHYARD_METRICS_PORT     Prometheus /metrics, /healthz, /readyz, hooks (default 9464; 0 = off)
  SWITCHYARD_METRICS_HOST     The address it listens on (default: console.host, else 127.0.0.1
                              with the console enabled, else every interface)
  SWITCHYARD_CONSOLE_TOKEN    The web console's token (/console on the metrics port; needs console.enabled)
  SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET (Events API) or SLACK_APP_TOKEN (Socket Mode),
  SLACK_API_URL               The Slack channel; with none of the platforms set, the console runs
  DISCORD_TOKEN, DISCORD_API_URL   The Discord channel (gateway and REST)
  DISCORD_COMMANDS            guild (default: in each server) or global: where /tools and /skills go
  DISCORD_APPLICATION_ID      Register them for this application (default: the token's)
  TELEGRAM_BOT_TOKEN          The Telegram channel (from @BotFather); long polling unless a webhook URL is set
  TELEGRAM_API_ROOT           A local Bot API server, e.g. http://localhost:8081 (default: Telegram's)
  TELEGRAM_WEBHOOK_URL, TELEGRAM_WEBHOOK_SECRET   Webhook mode: the public URL and the secret token
  SWITCHYARD_HTTP_PORT        Where webhooks are received, e.g. /slack/events (default 3000)
  SWITCHYARD_PREFIX           Redis key prefix (default sy)
  OTEL_EXPORTER_OTLP_ENDPOINT Traces over OTLP/HTTP, e.g. http://localhost:4318 (or telemetry.endpoint; default: off)
  LOG_LEVEL                   pino level (default info; logs go to stderr)`;

/** The flags `switchyard start` takes, as HELP lists them. */
const START_FLAGS = {
  role: { type: "string" },
  config: { type: "string" },
  tools: { type: "string" },
  mode: { type: "string" },
  plugin: { type: "string", multiple: true },
  help: { type: "boolean", short: "h", default: false },
} as const satisfies ParseArgsConfig["options"];

/**
 * `switchyard start`: {@link createBot} fed from the flags, the environment
 * and the config file. Every mistake in them fails here, before anything
 * starts.
 */
export async function runStartCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({ args: argv, options: START_FLAGS, strict: true });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const role = roleOf(values.role, env);
  const mode = values.mode === undefined ? undefined : parseLoadMode(values.mode);
  const runtime = runtimeLayer(values.tools, env.SWITCHYARD_TOOLS, mode);
  const tuning = {
    ...numberFromEnv(env, "SWITCHYARD_CONCURRENCY", "concurrency"),
    // Back-pressure's limits: 0 turns one off (BackPressureLimits).
    ...numberFromEnv(env, "SWITCHYARD_MAX_EVENT_LOOP_DELAY_MS", "maxEventLoopDelayMs", {
      zeroTurnsOff: true,
    }),
    ...numberFromEnv(env, "SWITCHYARD_MAX_HEAP_MB", "maxHeapMb", { zeroTurnsOff: true }),
    ...numberFromEnv(env, "SWITCHYARD_LEASE_MS", "leaseMs"),
    ...numberFromEnv(env, "SWITCHYARD_LOCK_MS", "lockDurationMs"),
    ...numberFromEnv(env, "SWITCHYARD_STALLED_INTERVAL_MS", "stalledIntervalMs"),
    ...numberFromEnv(env, "SWITCHYARD_MAX_STEPS", "maxSteps"),
    ...numberFromEnv(env, "SWITCHYARD_TOOL_TIMEOUT_MS", "toolTimeoutMs"),
  };
  const metricsPort = portFromEnv(env, "SWITCHYARD_METRICS_PORT", 9464);
  const metricsHost = hostFromEnv(env, "SWITCHYARD_METRICS_HOST");
  const queue = queueFromEnv(env);
  let liveConfig: LiveConfig | undefined;
  const file = configPath(values.config, env);
  // The platforms' `accounts:` say which bots run, so the file is read before the channels are
  // built; quietly, since the live config below reads it again and warns once.
  const atStart =
    file === undefined ? EMPTY_CONFIG : parseConfig(readConfigText(file), file, silentLogger);
  const channels = platformChannels(env, portFromEnv(env, "SWITCHYARD_HTTP_PORT", 3000), () =>
    liveConfig ? liveConfig.current : atStart,
  );
  // The console at a terminal: pino's lines below warn would interleave with the conversation.
  const level = terminalLogLevel(env, channels.length === 0 && role === "all" && atTerminal());
  const logger = createLogger({ destination: process.stderr, env, ...(level ? { level } : {}) });
  const port = loggerPort(logger);
  const config = new LiveConfig(file, port);
  liveConfig = config;
  // Process-wide, so the CLI's to set up: the SDK is imported only when traces are configured.
  const telemetry = config.current.telemetry;
  const tracing = tracingWanted(telemetry, env)
    ? (await import("../observability/tracing-setup.ts")).setupTracing(telemetry, env)
    : undefined;
  if (tracing) logger.info({ destination: tracing.destination }, "traces on");
  const metrics = new Metrics();
  const bot = createBot({
    ...tuning,
    role,
    config,
    // With no platform set, the bot's default: the console on stdin and stdout.
    ...(channels.length > 0 ? { channels } : {}),
    plugins: values.plugin ?? [],
    provider: providerFromEnv(
      env,
      port,
      () => config.current.model,
      () => config.current.models,
      (e) => metrics.countModelFallback(e.from, e.to, e.reason),
    ),
    runtime,
    queue,
    env,
    logger,
    metrics,
    metricsPort,
    ...(metricsHost === undefined ? {} : { metricsHost }),
  });
  const stop = async () => {
    await bot.stop();
    await tracing?.shutdown().catch(() => {});
  };
  process.once("SIGTERM", () => void stop().then(() => process.exit(0)));
  process.once("SIGINT", () => void stop().then(() => process.exit(0)));
  try {
    await bot.start();
  } catch (error) {
    // The bot released what it opened; the traces exporter is the CLI's own.
    await tracing?.shutdown().catch(() => {});
    throw error;
  }
  // A channel whose input can end (the console) ends the process with it.
  const terminal = bot.channels.find((channel) => channel.finished !== undefined);
  if (terminal === undefined) await new Promise<void>(() => {});
  try {
    await terminal?.finished;
  } finally {
    await stop();
    exitIfHeld(logger);
  }
  return 0;
}

/**
 * After the console's end of input the process exits once nothing holds it
 * (as a signal's stop exits at once). Should something still hold it, say
 * what, and exit anyway: a bot that said "stopped" must not hang.
 */
function exitIfHeld(logger: { warn(fields: object, message: string): void }): void {
  const timer = setTimeout(() => {
    logger.warn(
      { held: process.getActiveResourcesInfo() },
      "stopped, but something still holds the process open; exiting",
    );
    process.exit(process.exitCode ?? 0);
  }, 5_000);
  timer.unref();
}
