import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startSwitchyard } from "../app.ts";
import type { Channel } from "../channels/channel.ts";
import { runConsole } from "../channels/console/channel.ts";
import { DiscordChannel } from "../channels/discord/channel.ts";
import { discordOptionsFromEnv } from "../channels/discord/env.ts";
import { SlackChannel } from "../channels/slack/channel.ts";
import { TelegramChannel } from "../channels/telegram/channel.ts";
import { telegramOptionsFromEnv } from "../channels/telegram/env.ts";
import type { Provider } from "../core/agent/provider.ts";
import { runtimeLayer } from "../core/availability/runtime-spec.ts";
import { WarnOnce } from "../core/availability/warnings.ts";
import { EMPTY_CONFIG, type SwitchyardConfig } from "../core/config/index.ts";
import { parseLoadMode } from "../core/loading/modes.ts";
import { Host } from "../host.ts";
import { type OpsServer, startOpsServer } from "../observability/http.ts";
import { createLogger, loggerPort, registerSecret } from "../observability/logger.ts";
import { Metrics } from "../observability/metrics.ts";
import { createOpenAIProvider } from "../providers/openai.ts";
import { unconfiguredProvider } from "../providers/unconfigured.ts";
import { connectRedis } from "../runtime/redis.ts";
import { watchSkills } from "../skills/loader.ts";
import { Inbox } from "../workers/inbox.ts";
import { configPath, LiveConfig } from "./config-file.ts";

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
  OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL   The model (any OpenAI-compatible server)
  SWITCHYARD_METRICS_PORT     Prometheus /metrics, /healthz, /readyz (default 9464; 0 = off)
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
  LOG_LEVEL                   pino level (default info; logs go to stderr)`;

const ROLES = ["all", "ingress", "worker"] as const;
type Role = (typeof ROLES)[number];

export class StartOptionError extends Error {
  override readonly name = "StartOptionError";
}

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
  let liveConfig: LiveConfig | undefined;
  const channels = platformChannels(env, portFromEnv(env, "SWITCHYARD_HTTP_PORT", 3000), () =>
    liveConfig ? liveConfig.current : EMPTY_CONFIG,
  );
  const logger = createLogger({ destination: process.stderr, env });
  const port = loggerPort(logger);
  const config = new LiveConfig(configPath(values.config, env), port);
  liveConfig = config;
  const provider = providerFromEnv(env, port);
  const redis = await connectRedis({ dataDir: ".switchyard", logger, env });
  const prefix = env.SWITCHYARD_PREFIX ?? "sy";
  const host = new Host({
    env,
    config: config.current,
    redis: { url: redis.url, prefix },
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

  const metrics = new Metrics();
  const app = await startSwitchyard({
    redisUrl: redis.url,
    prefix,
    registry,
    capabilities,
    config: () => config.current,
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
    },
  });

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
  const reader = new Redis(redis.url, { maxRetriesPerRequest: null });
  try {
    await runConsole({
      input: process.stdin,
      print: (text) => process.stdout.write(text),
      queue: app.queue,
      inbox: new Inbox(app.redis, app.store.keys),
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

/**
 * The platform channels whose credentials are set. With none, the process
 * runs the console channel instead.
 */
function platformChannels(
  env: NodeJS.ProcessEnv,
  httpPort: number,
  config: () => SwitchyardConfig,
): Channel[] {
  const channels: Channel[] = [];
  if (env.SLACK_BOT_TOKEN) {
    if (!env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
      throw new StartOptionError(
        "SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API over HTTP) nor SLACK_APP_TOKEN (Socket Mode) is. Set one of them.",
      );
    }
    registerSecret(env.SLACK_BOT_TOKEN);
    channels.push(
      new SlackChannel({
        botToken: env.SLACK_BOT_TOKEN,
        ...(env.SLACK_SIGNING_SECRET ? { signingSecret: env.SLACK_SIGNING_SECRET } : {}),
        ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
        ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
        port: httpPort,
        settings: () => config().slack,
      }),
    );
  }
  const discord = discordOptionsFromEnv(env, config);
  if (discord) {
    registerSecret(discord.token);
    channels.push(new DiscordChannel(discord));
  }
  const telegram = telegramOptionsFromEnv(env, config, httpPort);
  if (telegram) {
    if (
      telegram.webhookUrl &&
      env.SLACK_BOT_TOKEN &&
      env.SLACK_SIGNING_SECRET &&
      !env.SLACK_APP_TOKEN
    ) {
      throw new StartOptionError(
        "Slack's Events API and Telegram's webhook would both listen on SWITCHYARD_HTTP_PORT. Run Slack in Socket Mode (SLACK_APP_TOKEN), run Telegram by long polling (unset TELEGRAM_WEBHOOK_URL), or run them in separate processes.",
      );
    }
    registerSecret(telegram.token);
    registerSecret(telegram.webhookSecret);
    channels.push(new TelegramChannel(telegram));
  }
  return channels;
}

function providerFromEnv(env: NodeJS.ProcessEnv, logger: ReturnType<typeof loggerPort>): Provider {
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) return unconfiguredProvider();
  return createOpenAIProvider({
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    model: env.SWITCHYARD_MODEL ?? "gpt-4.1-mini",
    logger,
  });
}

function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StartOptionError(`${name} must be a port number (0 turns it off), not "${raw}".`);
  }
  return port;
}

function numberFromEnv<K extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  key: K,
): Partial<Record<K, number>> {
  const raw = env[name];
  if (raw === undefined || raw === "") return {};
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new StartOptionError(`${name} must be a positive number, not "${raw}".`);
  }
  return { [key]: value } as Partial<Record<K, number>>;
}
