import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startSwitchyard } from "../app.ts";
import { runConsole } from "../channels/console/channel.ts";
import { DiscordChannel } from "../channels/discord/channel.ts";
import { TelegramChannel } from "../channels/telegram/channel.ts";
import { mountConsole, turnActivity } from "../console/mount.ts";
import { runtimeLayer } from "../core/availability/runtime-spec.ts";
import { EMPTY_CONFIG } from "../core/config/index.ts";
import { parseLoadMode } from "../core/loading/modes.ts";
import { WarnOnce } from "../core/logger.ts";
import { Host } from "../host.ts";
import { type OpsServer, startOpsServer } from "../observability/http.ts";
import { createLogger, loggerPort, registerSecret } from "../observability/logger.ts";
import { Metrics } from "../observability/metrics.ts";
import { installProcessGuard } from "../observability/process-guard.ts";
import { setupTracing } from "../observability/tracing-setup.ts";
import { connectRedis } from "../runtime/redis.ts";
import { watchSkills } from "../skills/loader.ts";
import { ActivityStore } from "../store/activity-store.ts";
import { Inbox } from "../workers/inbox.ts";
import { configPath, LiveConfig } from "./config-file.ts";
import {
  numberFromEnv,
  platformChannels,
  portFromEnv,
  providerFromEnv,
  StartOptionError,
} from "./platforms.ts";
import { queueBehaviourOf, queueFromEnv, queueSettings } from "./queue-settings.ts";

export { StartOptionError } from "./platforms.ts";

const HELP = `Usage: switchyard start [options]

Runs the bot. With no platform credentials it runs the console channel: type
messages on stdin, answers print on stdout, /tools works; end of input exits.

Options:
  --role all|ingress|worker   all (default): channels and turns in this process;
                              ingress: channels only; worker: turns only
  --config FILE               The config file (default: $SWITCHYARD_CONFIG, else ./switchyard.yaml)
  --tools SPEC                Runtime decisions, e.g. 'web_search=off' (default: $SWITCHYARD_TOOLS)
  --mode MODE                 Load mode: full, default, minimal (pi), discover (omp)
  -h, --help                  This help

Environment:
  REDIS_URL                   Redis (default: 127.0.0.1:6379, else a local redis-server is started)
  REDIS_CLUSTER_NODES         A Redis Cluster instead: host:port,host:port (seed nodes)
  REDIS_SENTINELS, REDIS_SENTINEL_NAME   Sentinel instead: host:port,host:port and the master group
  REDIS_USERNAME, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD, REDIS_TLS   For the cluster or Sentinel nodes
  SWITCHYARD_QUEUE_SHARDS     Conversation queue shards (default 1; on a cluster, one per master)
  SWITCHYARD_QUEUE_CONSUME    The shards this process works on, e.g. 0,1 or 0-3 (default: all)
  OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL   The model (any OpenAI-compatible server)
  SWITCHYARD_MODEL_FIRST_BYTE_MS, _IDLE_MS, _CALL_MS   Model timeouts (default 60000, 30000, 300000)
  SWITCHYARD_METRICS_PORT     Prometheus /metrics, /healthz, /readyz (default 9464; 0 = off)
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

const ROLES = ["all", "ingress", "worker"] as const;
type Role = (typeof ROLES)[number];

export async function runStartCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      role: { type: "string", default: "all" },
      config: { type: "string" },
      tools: { type: "string" },
      mode: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const role = values.role as Role;
  if (!ROLES.includes(role)) {
    throw new StartOptionError(`--role takes all, ingress or worker, not "${values.role}".`);
  }
  // Everything that can be wrong with the flags fails here, before anything starts.
  const mode = values.mode === undefined ? undefined : parseLoadMode(values.mode);
  const runtime = runtimeLayer(values.tools, env.SWITCHYARD_TOOLS, mode);
  const tuning = {
    ...numberFromEnv(env, "SWITCHYARD_CONCURRENCY", "concurrency"),
    ...numberFromEnv(env, "SWITCHYARD_LEASE_MS", "leaseMs"),
    ...numberFromEnv(env, "SWITCHYARD_LOCK_MS", "lockDurationMs"),
    ...numberFromEnv(env, "SWITCHYARD_STALLED_INTERVAL_MS", "stalledIntervalMs"),
    ...numberFromEnv(env, "SWITCHYARD_MAX_STEPS", "maxSteps"),
    ...numberFromEnv(env, "SWITCHYARD_TOOL_TIMEOUT_MS", "toolTimeoutMs"),
  };
  const metricsPort = portFromEnv(env, "SWITCHYARD_METRICS_PORT", 9464);
  const queueEnv = queueFromEnv(env);
  let liveConfig: LiveConfig | undefined;
  const channels = platformChannels(env, portFromEnv(env, "SWITCHYARD_HTTP_PORT", 3000), () =>
    liveConfig ? liveConfig.current : EMPTY_CONFIG,
  );
  const logger = createLogger({ destination: process.stderr, env });
  const metrics = new Metrics();
  // From here on, an error a library throws asynchronously is logged and counted, not the end (process-guard.ts).
  installProcessGuard({ logger, count: (kind) => metrics.countProcessError(kind) });
  for (const channel of channels) {
    if (channel instanceof DiscordChannel) {
      channel.countFailuresWith((stage) => metrics.countChannelError("discord", stage));
    }
  }
  const port = loggerPort(logger);
  const config = new LiveConfig(configPath(values.config, env), port);
  liveConfig = config;
  const tracing = setupTracing(config.current.telemetry, env);
  if (tracing) logger.info({ destination: tracing.destination }, "traces on");
  const provider = providerFromEnv(env, port, () => config.current.model);
  const redis = await connectRedis({
    dataDir: ".switchyard",
    logger,
    env,
    config: config.current.redis,
  });
  const queue = queueSettings(queueEnv, config.current.queue, redis.check);
  logger.info({ shards: queue.shards, consume: queue.consume ?? "all" }, "conversation queue");
  const prefix = env.SWITCHYARD_PREFIX ?? "sy";
  const host = new Host({
    env,
    config: config.current,
    redis: { prefix, connect: () => redis.factory.create("tools") },
    ...(config.file ? { baseDir: dirname(resolve(config.file)) } : {}),
    logger: {
      info: (message, fields) => logger.info({ ...fields }, message),
      warn: (message, fields) => logger.warn({ ...fields }, message),
    },
    onSecret: registerSecret,
  });
  // Every MCP server connected or failed once (each at most its connect timeout); none waits on another.
  await host.start();
  const { registry, capabilities } = host;
  for (const channel of channels) {
    host.messaging.add(channel.platform, channel.outbound, channel.directory);
  }
  const skills = await watchSkills(
    config.current.skillFolders,
    (library) => logger.info({ problems: library.problems() }, "skills re-read"),
    { logger: port, ...(config.file ? { baseDir: dirname(resolve(config.file)) } : {}) },
  );
  config.watch((next) => {
    void skills.setFolders(next.skillFolders);
    void host.reload(next);
  });

  let activity: ActivityStore | undefined;
  const app = await startSwitchyard({
    redis: redis.factory,
    prefix,
    shards: queue.shards,
    ...(queue.consume ? { consumeShards: queue.consume } : {}),
    waitForReplicas: queue.waitForReplicas,
    waitTimeoutMs: queue.waitTimeoutMs,
    registry,
    capabilities,
    config: () => config.current,
    queueBehaviour: queueBehaviourOf(queueEnv, () => config.current.queue),
    runtime,
    provider,
    skills,
    outbounds: Object.fromEntries(channels.map((c) => [c.platform, c.outbound])),
    worker: role !== "ingress",
    logger: port,
    ...tuning,
    observe: {
      queueWait: (ms) => metrics.observeQueueWait(ms / 1000),
      toolCall: (tool, outcome) => metrics.countToolCall(tool, outcome),
      turn: ({ address, result, outcome, ms, contractChanged }) => {
        activity?.record(address, turnActivity({ result, outcome, ms })).catch(() => {});
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
    },
  });

  activity = new ActivityStore(app.redis, app.store.keys);
  let ops: OpsServer | undefined;
  if (metricsPort > 0) {
    try {
      ops = await startOpsServer({
        port: metricsPort,
        metrics,
        ready: () => app.redis.status === "ready",
      });
    } catch (error) {
      logger.warn(
        { port: metricsPort, error: (error as Error).message },
        "metrics server not started",
      );
    }
  }

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      logger.info("stopping: finishing the turns in progress");
      config.close();
      skills.close();
      for (const channel of channels) await channel.stop();
      await app.close();
      await host.close();
      await ops?.close();
      await redis.stop();
      await tracing?.shutdown().catch(() => {});
    })();
    return stopping;
  };
  process.once("SIGTERM", () => void shutdown().then(() => process.exit(0)));
  process.once("SIGINT", () => void shutdown().then(() => process.exit(0)));

  const sources = {
    store: app.store,
    skills,
    registry,
    capabilities,
    config: () => config.current,
    runtime,
    warnings: new WarnOnce(port),
  };
  if (ops && config.current.console.enabled) {
    const queueMode = queueBehaviourOf(queueEnv, () => config.current.queue);
    mountConsole(ops, {
      ...{ env, redis: app.redis, prefix, sources, queue: app.queue, host, logger },
      queueMode: (address) => queueMode(address).mode,
    });
  }
  if (role === "worker") {
    // Workers only post: Discord's REST needs the token, not a gateway session.
    for (const channel of channels) if (channel instanceof DiscordChannel) channel.useRestOnly();
    // Telegram's Bot API needs only the token; posts are remembered in Redis so a retry lands once.
    for (const channel of channels) {
      if (channel instanceof TelegramChannel) channel.useOutboundOnly(app.redis, prefix, port);
    }
  } else {
    for (const channel of channels) {
      await channel.start({
        queue: app.queue,
        redis: app.redis,
        sources,
        permissions: () => config.current.permissions,
        skills,
        logger: port,
      });
      logger.info({ platform: channel.platform }, "channel started");
    }
  }
  if (role === "worker" || channels.length > 0) {
    logger.info(role === "worker" ? "worker started; waiting for turns" : "channels started");
    await new Promise<void>(() => {});
  }
  const reader = redis.factory.create("reader");
  try {
    await runConsole({
      input: process.stdin,
      print: (text) => process.stdout.write(text),
      queue: app.queue,
      idle: (address) => new Inbox(app.redis, app.store.keys).idle(address),
      outbox: app.outbox,
      reader,
      skillLibrary: skills,
      sources,
    });
  } finally {
    reader.disconnect();
    await shutdown();
  }
  return 0;
}
