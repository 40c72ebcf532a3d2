import { dirname, resolve } from "node:path";
import { DEFAULT_PERSONA } from "../core/agent/prompt.ts";
import type { Provider } from "../core/agent/provider.ts";
import { botModelOf } from "../core/config/index.ts";
import type { ToolRegistry } from "../core/tools/registry.ts";
import type { Channel } from "../ingress/channel.ts";
import type { OpsServer } from "../observability/http.ts";
import { createLogger, type Logger, loggerPort, registerSecret } from "../observability/logger.ts";
import { Metrics } from "../observability/metrics.ts";
import { installProcessGuard } from "../observability/process-guard.ts";
import { connectRedis, type RedisConnection } from "../ops/redis/redis.ts";
import { ConsoleChannel } from "../platforms/terminal/console-channel.ts";
import { atTerminal, terminalLogLevel } from "../platforms/terminal/terminal.ts";
import { isUnconfigured } from "../providers/unconfigured.ts";
import { ActivityStore } from "../store/activity-store.ts";
import { type Switchyard, startSwitchyard } from "./app.ts";
import { channelsFor, startChannels } from "./bot-channels.ts";
import { configSourceOf } from "./config-file.ts";
import { StartOptionError } from "./errors.ts";
import { Host } from "./host.ts";
import { serveOps, turnObserver } from "./observe.ts";
import { type BotOptions, type BotRole, type ConfigSource, turnTuningOf } from "./options.ts";
import { PersonaBook } from "./persona.ts";
import { loadPlugins, pluginSpecsFor, type SwitchyardPlugin } from "./plugins.ts";
import { providerFromEnv, transcriberFromEnv } from "./provider-env.ts";
import { queueBehaviourOf, queueSettings } from "./queue-settings.ts";
import { type SkillLibrary, watchSkills } from "./skill-folders.ts";

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

/** Whether the bot's console (given, or the default one) has a person typing at a terminal. */
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

function consoleAtTerminal(channels: readonly Channel[] | undefined, role: BotRole): boolean {
  if (channels === undefined) return role === "all" && atTerminal();
  return channels.some((channel) => channel instanceof ConsoleChannel && channel.interactive);
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
  #releasing: Promise<void> | undefined;

  constructor(options: BotOptions) {
    const role = options.role ?? "all";
    if (!["all", "ingress", "worker"].includes(role)) {
      throw new StartOptionError(`role takes all, ingress or worker, not "${role}".`);
    }
    this.role = role;
    this.#options = options;
    this.#env = options.env ?? process.env;
    // The console at a terminal: pino's lines below warn would interleave with the conversation.
    const level = terminalLogLevel(this.#env, consoleAtTerminal(options.channels, role));
    this.#logger =
      options.logger ??
      createLogger({
        destination: process.stderr,
        env: this.#env as NodeJS.ProcessEnv,
        ...(level ? { level } : {}),
      });
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
    const metrics = this.metrics;
    // From here on, an error a library throws asynchronously is logged and counted, not the end.
    const guard =
      this.#options.processGuard === false
        ? undefined
        : installProcessGuard({
            logger: this.#logger,
            count: (kind) => metrics.countProcessError(kind),
          });
    try {
      await this.#startParts();
    } catch (error) {
      // A failed start is the caller's error, not one nobody caught: the guard
      // must not swallow it (an uncaught one then ends the process with its
      // message), and nothing this start opened may keep the process alive.
      guard?.uninstall();
      await this.#release().catch(() => {});
      throw error;
    }
  }

  async #startParts(): Promise<void> {
    const options = this.#options;
    const logger = this.#logger;
    const metrics = this.metrics;
    const port = loggerPort(logger);
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
    const channels = this.#chooseChannels(plugins);
    const provider =
      options.provider ??
      providerFromEnv(
        this.#env as NodeJS.ProcessEnv,
        port,
        () => config.current.model,
        () => config.current.models,
        (e) => this.metrics.countModelFallback(e.from, e.to, e.reason),
      );
    const redis = await this.#connectRedis(config);
    const queueEnv = options.queue ?? {};
    const queue = queueSettings(queueEnv, config.current.queue, redis.check);
    logger.info({ shards: queue.shards, consume: queue.consume ?? "all" }, "conversation queue");
    const prefix = options.prefix ?? this.#env.SWITCHYARD_PREFIX ?? "sy";
    const host = await this.#startHost(config, baseDir, redis, prefix, plugins, provider);
    for (const channel of channels) {
      host.messaging.add(channel.platform, channel.outbound, channel.directory);
    }
    const skills = await this.#watchSkills(config, baseDir, plugins);
    config.watch?.((next) => {
      void skills.setFolders(next.skillFolders);
      void host.reload(next);
    });
    // Recent turns per conversation, for the operator console, once the pipeline's Redis is there.
    let activity: ActivityStore | undefined;
    const transcriber = transcriberFromEnv(config.current, this.#env);
    // The one place the bot's options become the pipeline's, which builds every turn's environment from them.
    const app = await startSwitchyard({
      ...turnTuningOf(options),
      redis: redis.factory,
      prefix,
      shards: queue.shards,
      ...(queue.consume ? { consumeShards: queue.consume } : {}),
      waitForReplicas: queue.waitForReplicas,
      waitTimeoutMs: queue.waitTimeoutMs,
      registry: host.registry,
      capabilities: host.capabilities,
      config: () => config.current,
      queueBehaviour: queueBehaviourOf(queueEnv, () => config.current.queue),
      runtime: options.runtime ?? {},
      provider,
      model: botModelOf(this.#env),
      ...(transcriber ? { transcriber } : {}),
      skills,
      persona: (address, agent) => personas.personaFor(config.current, address, agent),
      outbounds: Object.fromEntries(channels.map((c) => [c.platform, c.outbound])),
      worker: this.role !== "ingress",
      logger: port,
      observe: turnObserver(metrics, () => activity),
    });
    activity = new ActivityStore(app.redis, app.store.keys);
    this.#running.app = app;
    this.#running.stopWatchingWork = metrics.watchWork({
      waiting: () => app.queue.waiting(),
      inProgress: () => app.worker?.inProgress ?? 0,
    });
    const ops = await serveOps(app, {
      port: options.metricsPort,
      host: options.metricsHost,
      config: config.current,
      tools: host,
      env: this.#env,
      metrics,
      logger,
    });
    if (ops) this.#running.ops = ops;
    if (this.role !== "worker") {
      // Hooks are taken where messages come in; a worker never loads them.
      const { serveHooks } = await import("./hooks.ts");
      serveHooks(app, ops, {
        config: () => config.current,
        env: this.#env,
        logger: port,
        platforms: channels.map((channel) => channel.platform),
        refused: (reason) => metrics.countRefused(reason),
      });
    }
    await startChannels(app, channels, { role: this.role, skills, config, logger, metrics });
  }

  /** The channels given and the plugins', each counting what it survives into the metrics. */
  #chooseChannels(plugins: readonly SwitchyardPlugin[]): Channel[] {
    const channels = channelsFor(this.#options.channels, plugins, this.role);
    this.#running.channels = channels;
    for (const channel of channels) {
      channel.countFailuresWith?.((stage) =>
        this.metrics.countChannelError(channel.platform, stage),
      );
    }
    return channels;
  }

  async #connectRedis(config: ConfigSource): Promise<RedisConnection> {
    const redis = await connectRedis({
      dataDir: ".switchyard",
      logger: this.#logger,
      env: this.#env as NodeJS.ProcessEnv,
      config: config.current.redis,
      ...(this.#options.redis ? { url: this.#options.redis } : {}),
    });
    this.#running.redis = redis;
    return redis;
  }

  /** The skill folders, your skills and the plugins', re-read when a folder changes. */
  async #watchSkills(
    config: ConfigSource,
    baseDir: string,
    plugins: readonly SwitchyardPlugin[],
  ): Promise<SkillLibrary> {
    const logger = this.#logger;
    const skills = await watchSkills(
      config.current.skillFolders,
      (library) => logger.info({ problems: library.problems() }, "skills re-read"),
      {
        logger: loggerPort(logger),
        ...(config.file ? { baseDir } : {}),
        inline: [...(this.#options.skills ?? []), ...plugins.flatMap((p) => p.skills ?? [])],
      },
    );
    this.#running.skills = skills;
    return skills;
  }

  async #startHost(
    config: ConfigSource,
    baseDir: string,
    redis: RedisConnection,
    prefix: string,
    plugins: readonly SwitchyardPlugin[],
    provider: Provider,
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
      modelConfigured: !isUnconfigured(provider),
    });
    this.#running.host = host;
    this.#registry = host.registry;
    // Every MCP server connected or failed once (each at most its connect timeout); none waits on another.
    await host.start();
    return host;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.#starting?.catch(() => {});
      // First of all, no new turn: a message that comes now waits in Redis for the next worker.
      await this.#running.app?.stopTaking();
      this.#logger.info("stopping: finishing the turns in progress");
      await this.#release();
      this.#logger.info("stopped");
    })();
    return this.#stopping;
  }

  /** Closes what has started, as far as it got; once, whether a failed start or `stop` asks first. */
  #release(): Promise<void> {
    this.#releasing ??= (async () => {
      const running = this.#running;
      const step = (what: string, closing: Promise<unknown> | undefined) =>
        slowStepWarned(this.#logger, what, closing);
      running.config?.close?.();
      running.skills?.close();
      for (const channel of running.channels)
        await step(`the ${channel.platform} channel`, channel.stop());
      running.stopWatchingWork?.();
      await step("the turns in progress and the queues", running.app?.close());
      await step("the tools' host (MCP servers)", running.host?.close());
      await step("the metrics and console server", running.ops?.close());
      await step("the local Redis", running.redis?.stop());
    })();
    return this.#releasing;
  }
}

/**
 * Awaits one step of stopping; one that takes over 30 s is named in the log
 * once (a turn may take that long; a connection that never closes should not
 * leave the operator guessing which one it is).
 */
async function slowStepWarned(
  logger: Logger,
  what: string,
  closing: Promise<unknown> | undefined,
): Promise<void> {
  if (closing === undefined) return;
  const timer = setTimeout(
    () => logger.warn({ step: what }, "stopping: still waiting on a step"),
    30_000,
  );
  timer.unref();
  try {
    await closing;
  } finally {
    clearTimeout(timer);
  }
}
