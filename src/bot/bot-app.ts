import { type Switchyard, startSwitchyard } from "../app.ts";
import type { Channel } from "../channels/channel.ts";
import { mountConsole, turnActivity } from "../console/mount.ts";
import type { ContractSources } from "../conversation/contract.ts";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import type { Provider } from "../core/agent/provider.ts";
import type { QueueBehaviour, QueueMode } from "../core/agent/queue-mode.ts";
import { botModelOf, CONSOLE_DEFAULT_HOST, type SwitchyardConfig } from "../core/config/index.ts";
import { WarnOnce } from "../core/logger.ts";
import type { Host } from "../host.ts";
import { type OpsServer, startOpsServer } from "../observability/http.ts";
import { type Logger, loggerPort, registerSecret } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RedisConnection } from "../redis/redis.ts";
import type { SkillLibrary } from "../skills/loader.ts";
import { ActivityStore } from "../store/activity-store.ts";
import { openAITranscriber, type Transcriber } from "../tools/attachments/index.ts";
import { startChannels } from "./bot-channels.ts";
import { turnObserver } from "./observe.ts";
import type { BotOptions, BotRole, ConfigSource } from "./options.ts";
import type { PersonaBook } from "./persona.ts";
import { type QueueEnv, type QueueSettings, queueBehaviourOf } from "./queue-settings.ts";

type Env = Readonly<Record<string, string | undefined>>;
type QueueBehaviourFor = (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;

/** What a bot has ready, from its options to its host, when the pipeline starts. */
export interface AppParts {
  readonly options: BotOptions;
  readonly env: Env;
  readonly role: BotRole;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly channels: readonly Channel[];
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
export interface Running {
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

/**
 * The pipeline (queue, worker, reminders), the ops server, the console and the
 * channels, over what the bot prepared; each is noted in `running` as it starts.
 */
export async function startBotApp(parts: AppParts, running: Running): Promise<void> {
  const { config, metrics } = parts;
  const queueBehaviour = queueBehaviourOf(parts.queueEnv, () => config.current.queue);
  const model = botModelOf(parts.env);
  const app = await startPipeline(parts, queueBehaviour, model);
  running.app = app;
  running.stopWatchingWork = metrics.watchWork({
    waiting: () => app.queue.waiting(),
    inProgress: () => app.worker?.inProgress ?? 0,
  });
  const ops = await startOps(parts, app);
  if (ops) running.ops = ops;
  const sources = contractSources(parts, app, model);
  if (ops && config.current.console.enabled) {
    await mountConsole(ops, {
      env: parts.env,
      redis: app.redis,
      prefix: parts.prefix,
      sources,
      queue: app.queue,
      host: parts.host,
      logger: parts.logger,
      queueMode: (address) => queueBehaviour(address).mode,
    });
  }
  await startChannels({
    channels: parts.channels,
    role: parts.role,
    app,
    skills: parts.skills,
    config,
    prefix: parts.prefix,
    logger: parts.logger,
    sources,
    queueBehaviour,
    metrics,
  });
}

async function startPipeline(
  parts: AppParts,
  queueBehaviour: QueueBehaviourFor,
  model: string,
): Promise<Switchyard> {
  const { options, config, host, queue } = parts;
  // Recent turns per conversation, for the operator console; written whether or not it is served.
  let activity: ActivityStore | undefined;
  const observe = turnObserver(parts.metrics);
  const app = await startSwitchyard({
    ...turnTuning(options),
    redis: parts.redis.factory,
    prefix: parts.prefix,
    shards: queue.shards,
    ...(queue.consume ? { consumeShards: queue.consume } : {}),
    waitForReplicas: queue.waitForReplicas,
    waitTimeoutMs: queue.waitTimeoutMs,
    registry: host.registry,
    capabilities: host.capabilities,
    config: () => config.current,
    queueBehaviour,
    runtime: options.runtime ?? {},
    provider: parts.provider,
    model,
    ...transcriberOf(config.current, parts.env),
    skills: parts.skills,
    persona: (address) => parts.personas.personaFor(config.current, address),
    outbounds: Object.fromEntries(parts.channels.map((c) => [c.platform, c.outbound])),
    worker: parts.role !== "ingress",
    logger: loggerPort(parts.logger),
    observe: {
      ...observe,
      turn: (info) => {
        observe.turn?.(info);
        const { address, result, outcome, ms } = info;
        activity?.record(address, turnActivity({ result, outcome, ms })).catch(() => {});
      },
    },
  });
  activity = new ActivityStore(app.redis, app.store.keys);
  return app;
}

/** What /tools, the console and the channels read a conversation's contract from. */
function contractSources(parts: AppParts, app: Switchyard, model: string): ContractSources {
  return {
    store: app.store,
    skills: parts.skills,
    registry: parts.host.registry,
    capabilities: parts.host.capabilities,
    config: () => parts.config.current,
    runtime: parts.options.runtime ?? {},
    warnings: new WarnOnce(loggerPort(parts.logger)),
    model,
  };
}

/** The metrics (and console) server when `metricsPort` asks for one; a port in use is a warning, not a failed start. */
async function startOps(parts: AppParts, app: Switchyard): Promise<OpsServer | undefined> {
  const port = parts.options.metricsPort ?? 0;
  if (port <= 0) return undefined;
  const host = opsHost(parts.options.metricsHost, parts.config.current.console);
  try {
    return await startOpsServer({
      port,
      ...(host === undefined ? {} : { host }),
      metrics: parts.metrics,
      ready: () => app.redis.status === "ready",
    });
  } catch (error) {
    parts.logger.warn(
      { port, host, error: (error as Error).message },
      "metrics server not started",
    );
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
function transcriberOf(config: SwitchyardConfig, env: Env): { transcriber?: Transcriber } {
  const key = env[config.transcription.keyEnv];
  if (key) registerSecret(key);
  const transcriber = openAITranscriber(
    config.transcription,
    env as NodeJS.ProcessEnv,
    config.attachments.fetchMs,
  );
  return transcriber ? { transcriber } : {};
}
