import { dirname, resolve } from "node:path";
import { type Switchyard, startSwitchyard } from "../app.ts";
import type { Channel } from "../channels/channel.ts";
import { ConsoleChannel } from "../channels/console/console-channel.ts";
import { DiscordChannel } from "../channels/discord/channel.ts";
import { mountConsole, turnActivity } from "../console/mount.ts";
import type { ContractSources } from "../conversation/contract.ts";
import { DEFAULT_PERSONA } from "../core/agent/prompt.ts";
import type { Provider } from "../core/agent/provider.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import { WarnOnce } from "../core/logger.ts";
import type { ToolRegistry } from "../core/tools/registry.ts";
import { Host } from "../host.ts";
import { type OpsServer, startOpsServer } from "../observability/http.ts";
import { createLogger, type Logger, loggerPort, registerSecret } from "../observability/logger.ts";
import { Metrics } from "../observability/metrics.ts";
import { installProcessGuard } from "../observability/process-guard.ts";
import { connectRedis, type RedisConnection } from "../redis/redis.ts";
import { type SkillLibrary, watchSkills } from "../skills/loader.ts";
import { ActivityStore } from "../store/activity-store.ts";
import { openAITranscriber, type Transcriber } from "../tools/attachments/index.ts";
import { channelsFor, startChannels } from "./bot-channels.ts";
import { configSourceOf } from "./config-source.ts";
import { StartOptionError } from "./errors.ts";
import { turnObserver } from "./observe.ts";
import type { BotOptions, BotRole, ConfigSource } from "./options.ts";
import { PersonaBook } from "./persona.ts";
import { loadPlugins, pluginSpecsFor, type SwitchyardPlugin } from "./plugins.ts";
import { providerFromEnv } from "./provider-env.ts";
import {
  type QueueEnv,
  type QueueSettings,
  queueBehaviourOf,
  queueSettings,
} from "./queue-settings.ts";

/** A bot built by {@link createBot}: start it, stop it. */
export interface Bot {
  /**
   * Connects Redis, loads the plugins, connects the MCP servers, starts the
   * turn worker and the channels. Resolves once every channel takes messages.
   */
  start(): Promise<void>;
  /** Stops taking messages, lets the turns in progress finish, and closes every connection. */
  stop(): Promise<void>;
  readonly role: BotRole;
  /** The channels that run, plugins' included; known once `start` resolves. */
  readonly channels: readonly Channel[];
  /** The live tools: built-ins, yours, plugins' and MCP servers'; known once `start` resolves. */
  readonly registry: ToolRegistry | undefined;
  readonly metrics: Metrics;
}

/**
 * Builds a whole bot from parts: your tools and skills beside the built-ins,
 * a persona, the config, the channels. Nothing connects until `start()`.
 * `switchyard start` is this function fed from the environment and the
 * config file.
 *
 * @example
 * import { createBot, defineTool, slackChannel } from "switchyard";
 * import { z } from "zod";
 *
 * const weather = defineTool({
 *   id: "weather",
 *   description: "Current weather for a city.",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 *
 * const bot = createBot({
 *   tools: [weather],
 *   persona: "You are Ada, the platform team's helper.",
 *   config: "./switchyard.yaml",
 *   channels: [slackChannel({ botToken: process.env.SLACK_BOT_TOKEN!, appToken: process.env.SLACK_APP_TOKEN! })],
 * });
 * await bot.start();
 * process.once("SIGTERM", () => void bot.stop());
 */
export function createBot(options: BotOptions = {}): Bot {
  return new SwitchyardBot(options);
}

/** What `#start` has ready when the pipeline starts. */
interface AppParts {
  readonly config: ConfigSource;
  readonly redis: RedisConnection;
  readonly queue: QueueSettings;
  readonly queueEnv: QueueEnv;
  readonly prefix: string;
  readonly host: Host;
  readonly skills: SkillLibrary;
  readonly provider: Provider;
  readonly personas: PersonaBook;
}

/** What has started, so `stop` closes exactly that. */
interface Running {
  config?: ConfigSource;
  redis?: RedisConnection;
  host?: Host;
  skills?: SkillLibrary;
  app?: Switchyard;
  ops?: OpsServer;
  channels: Channel[];
  /** Stops the gauges of the work waiting and in progress. */
  stopWatchingWork?: () => void;
}

class SwitchyardBot implements Bot {
  readonly role: BotRole;
  readonly metrics: Metrics;
  readonly #options: BotOptions;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #logger: Logger;
  readonly #running: Running = { channels: [] };
  #registry: ToolRegistry | undefined;
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: BotOptions) {
    const role = options.role ?? "all";
    if (!["all", "ingress", "worker"].includes(role)) {
      throw new StartOptionError(`role takes all, ingress or worker, not "${role}".`);
    }
    this.role = role;
    this.#options = options;
    this.#env = options.env ?? process.env;
    this.#logger =
      options.logger ??
      createLogger({ destination: process.stderr, env: this.#env as NodeJS.ProcessEnv });
    this.metrics = options.metrics ?? new Metrics();
  }

  get channels(): readonly Channel[] {
    return this.#running.channels;
  }

  get registry(): ToolRegistry | undefined {
    return this.#registry;
  }

  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const options = this.#options;
    const logger = this.#logger;
    const metrics = this.metrics;
    const port = loggerPort(logger);
    if (options.processGuard !== false) {
      // From here on, an error a library throws asynchronously is logged and counted, not the end.
      installProcessGuard({ logger, count: (kind) => metrics.countProcessError(kind) });
    }
    const config = configSourceOf(options.config, port);
    this.#running.config = config;
    const baseDir = config.file ? dirname(resolve(config.file)) : process.cwd();
    const personas = new PersonaBook({
      fallback: options.persona ?? DEFAULT_PERSONA,
      baseDir,
      logger: port,
    });
    personas.read(config.current, { strict: true });
    const plugins = await loadPlugins(
      pluginSpecsFor(config.current.plugins, config.file, options.plugins),
    );
    const channels = channelsFor(options.channels, plugins, this.role);
    this.#running.channels = channels;
    for (const channel of channels) {
      if (channel instanceof DiscordChannel) {
        channel.countFailuresWith((stage) => metrics.countChannelError("discord", stage));
      }
    }
    const provider =
      options.provider ??
      providerFromEnv(
        this.#env as NodeJS.ProcessEnv,
        port,
        () => config.current.model,
        () => config.current.models,
      );
    const redis = await connectRedis({
      dataDir: ".switchyard",
      logger,
      env: this.#env as NodeJS.ProcessEnv,
      config: config.current.redis,
      ...(options.redis ? { url: options.redis } : {}),
    });
    this.#running.redis = redis;
    const queueEnv = options.queue ?? {};
    const queue = queueSettings(queueEnv, config.current.queue, redis.check);
    logger.info({ shards: queue.shards, consume: queue.consume ?? "all" }, "conversation queue");
    const prefix = options.prefix ?? this.#env.SWITCHYARD_PREFIX ?? "sy";
    const host = await this.#startHost(config, baseDir, redis, prefix, plugins);
    for (const channel of channels) {
      host.messaging.add(channel.platform, channel.outbound, channel.directory);
    }
    const skills = await watchSkills(
      config.current.skillFolders,
      (library) => logger.info({ problems: library.problems() }, "skills re-read"),
      {
        logger: port,
        ...(config.file ? { baseDir } : {}),
        inline: [...(options.skills ?? []), ...plugins.flatMap((p) => p.skills ?? [])],
      },
    );
    this.#running.skills = skills;
    config.watch?.((next) => {
      void skills.setFolders(next.skillFolders);
      void host.reload(next);
    });
    await this.#startApp({
      config,
      redis,
      queue,
      queueEnv,
      prefix,
      host,
      skills,
      provider,
      personas,
    });
  }

  /** The pipeline (queue, worker, reminders), the ops server and the channels, over what `#start` prepared. */
  async #startApp(parts: AppParts): Promise<void> {
    const { config, redis, queue, queueEnv, prefix, host, skills, provider, personas } = parts;
    const options = this.#options;
    const channels = this.#running.channels;
    const queueBehaviour = queueBehaviourOf(queueEnv, () => config.current.queue);
    const model = this.#env.SWITCHYARD_MODEL ?? "gpt-4.1-mini";
    // Recent turns per conversation, for the operator console; written whether or not it is served.
    let activity: ActivityStore | undefined;
    const observe = turnObserver(this.metrics);
    const app = await startSwitchyard({
      ...turnTuning(options),
      redis: redis.factory,
      prefix,
      shards: queue.shards,
      ...(queue.consume ? { consumeShards: queue.consume } : {}),
      waitForReplicas: queue.waitForReplicas,
      waitTimeoutMs: queue.waitTimeoutMs,
      registry: host.registry,
      capabilities: host.capabilities,
      config: () => config.current,
      queueBehaviour,
      runtime: options.runtime ?? {},
      provider,
      model,
      ...transcriberOf(config.current, this.#env),
      skills,
      persona: (address) => personas.personaFor(config.current, address),
      // The console's answers go through the app's Redis outbox, which every worker has.
      outbounds: Object.fromEntries(
        channels.filter((c) => !(c instanceof ConsoleChannel)).map((c) => [c.platform, c.outbound]),
      ),
      worker: this.role !== "ingress",
      logger: loggerPort(this.#logger),
      observe: {
        ...observe,
        turn: (info) => {
          observe.turn?.(info);
          const { address, result, outcome, ms } = info;
          activity?.record(address, turnActivity({ result, outcome, ms })).catch(() => {});
        },
      },
    });
    this.#running.app = app;
    activity = new ActivityStore(app.redis, app.store.keys);
    this.#running.stopWatchingWork = this.metrics.watchWork({
      waiting: () => app.queue.waiting(),
      inProgress: () => app.worker?.inProgress ?? 0,
    });
    await this.#startOps(app);
    // What /tools, the console and the channels read a conversation's contract from.
    const sources: ContractSources = {
      store: app.store,
      skills,
      registry: host.registry,
      capabilities: host.capabilities,
      config: () => config.current,
      runtime: options.runtime ?? {},
      warnings: new WarnOnce(loggerPort(this.#logger)),
      model,
    };
    const ops = this.#running.ops;
    if (ops && config.current.console.enabled) {
      mountConsole(ops, {
        env: this.#env,
        redis: app.redis,
        prefix,
        sources,
        queue: app.queue,
        host,
        logger: this.#logger,
        queueMode: (address) => queueBehaviour(address).mode,
      });
    }
    await startChannels({
      channels,
      role: this.role,
      app,
      skills,
      config,
      prefix,
      logger: this.#logger,
      sources,
      queueBehaviour,
      metrics: this.metrics,
    });
  }

  async #startHost(
    config: ConfigSource,
    baseDir: string,
    redis: RedisConnection,
    prefix: string,
    plugins: readonly SwitchyardPlugin[],
  ): Promise<Host> {
    const logger = this.#logger;
    const host = new Host({
      env: this.#env,
      config: config.current,
      redis: { prefix, connect: () => redis.factory.create("tools") },
      ...(config.file ? { baseDir } : {}),
      logger: {
        info: (message, fields) => logger.info({ ...fields }, message),
        warn: (message, fields) => logger.warn({ ...fields }, message),
      },
      onSecret: registerSecret,
      ...(this.#options.builtins ? { builtins: this.#options.builtins } : {}),
      tools: [...(this.#options.tools ?? []), ...plugins.flatMap((p) => p.tools ?? [])],
    });
    this.#running.host = host;
    this.#registry = host.registry;
    // Every MCP server connected or failed once (each at most its connect timeout); none waits on another.
    await host.start();
    return host;
  }

  async #startOps(app: Switchyard): Promise<void> {
    const port = this.#options.metricsPort ?? 0;
    if (port <= 0) return;
    try {
      this.#running.ops = await startOpsServer({
        port,
        metrics: this.metrics,
        ready: () => app.redis.status === "ready",
      });
    } catch (error) {
      this.#logger.warn({ port, error: (error as Error).message }, "metrics server not started");
    }
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.#starting?.catch(() => {});
      const running = this.#running;
      this.#logger.info("stopping: finishing the turns in progress");
      running.config?.close?.();
      running.skills?.close();
      for (const channel of running.channels) await channel.stop();
      running.stopWatchingWork?.();
      await running.app?.close();
      await running.host?.close();
      await running.ops?.close();
      await running.redis?.stop();
    })();
    return this.#stopping;
  }
}

function turnTuning(options: BotOptions) {
  const keys = [
    "concurrency",
    "leaseMs",
    "lockDurationMs",
    "stalledIntervalMs",
    "maxSteps",
    "toolTimeoutMs",
    "historyMaxTokens",
    "streamEditMs",
  ] as const;
  const tuning: Partial<Record<(typeof keys)[number], number>> = {};
  for (const key of keys) if (options[key] !== undefined) tuning[key] = options[key];
  return tuning;
}

/** The transcriber when `transcription:` is configured with its key; the key is redacted from logs. */
function transcriberOf(
  config: SwitchyardConfig,
  env: Readonly<Record<string, string | undefined>>,
): { transcriber?: Transcriber } {
  const key = env[config.transcription.keyEnv];
  if (key) registerSecret(key);
  const transcriber = openAITranscriber(
    config.transcription,
    env as NodeJS.ProcessEnv,
    config.attachments.fetchMs,
  );
  return transcriber ? { transcriber } : {};
}
