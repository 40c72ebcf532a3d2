import type { Redis } from "ioredis";
import type { Dispatcher } from "undici";
import { EMPTY_CONFIG } from "./channels/config.ts";
import { RedisOutbox } from "./channels/console/outbox.ts";
import type { SkillSources } from "./conversation/contract.ts";
import { type ConversationAddress, conversationKey } from "./core/agent/inbound.ts";
import { DEFAULT_PERSONA } from "./core/agent/prompt.ts";
import type { Provider } from "./core/agent/provider.ts";
import type { QueueBehaviour, QueueMode } from "./core/agent/queue-mode.ts";
import type { ApprovalPolicy } from "./core/approvals/approval.ts";
import type { Capabilities } from "./core/availability/capabilities.ts";
import type { ScopeLayer } from "./core/availability/scopes.ts";
import { queueBehaviourFor, type SwitchyardConfig } from "./core/config/index.ts";
import { type LoggerPort, silentLogger, WarnOnce } from "./core/logger.ts";
import type { ToolRegistry } from "./core/tools/registry.ts";
import type { Outbound } from "./ports/outbound.ts";
import { RedisFactory } from "./redis/redis-factory.ts";
import { createStore, type Store } from "./store/index.ts";
import { FileReader, RedisToolFiles, type Transcriber } from "./tools/attachments/index.ts";
import { ReminderWorker } from "./tools/reminders/index.ts";
import { ApprovalDesk } from "./workers/approval-desk.ts";
import { Inbox } from "./workers/inbox.ts";
import { ConversationQueue } from "./workers/queue.ts";
import type { TurnEnvironment, TurnObserver } from "./workers/turn-environment.ts";
import { TurnSignals } from "./workers/turn-signals.ts";
import { TurnWorker, type TurnWorkerOptions } from "./workers/turn-worker.ts";

/** How long one tool call may run when `toolTimeoutMs` is not given (`SWITCHYARD_TOOL_TIMEOUT_MS`). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

export interface SwitchyardOptions {
  /** Builds every connection: one Redis, a cluster or Sentinel (from `connectRedis`). */
  readonly redis?: RedisFactory;
  /** A single Redis, when there is no `redis` factory. */
  readonly redisUrl?: string;
  /** Every Redis key starts with it; default "sy". */
  readonly prefix?: string;
  /** The conversation queue's shard count (1 by default); every process of a deployment uses the same. */
  readonly shards?: number;
  /** The shards this process's worker consumes; all by default. */
  readonly consumeShards?: readonly number[];
  /** An enqueue returns once this many replicas have it (Redis `WAIT`); 0 by default. */
  readonly waitForReplicas?: number;
  readonly waitTimeoutMs?: number;
  /** How often the worker looks for queues of other shard counts to drain (15 s by default). */
  readonly drainIntervalMs?: number;
  readonly registry: ToolRegistry;
  /** What the host has for a turn on a model (undefined: the bot's own); see `Host.capabilities`. */
  readonly capabilities?: (model?: string) => Capabilities;
  readonly config?: () => SwitchyardConfig;
  readonly runtime?: ScopeLayer;
  readonly provider: Provider;
  /** The skill folders, read by the loader; without them the bot has no skills. */
  readonly skills?: SkillSources;
  /** The persona (system prompt's first block): one for every conversation, or chosen per conversation. */
  readonly persona?: string | ((address: ConversationAddress) => string);
  readonly maxSteps?: number;
  readonly toolTimeoutMs?: number;
  readonly historyMaxTokens?: number;
  /** Stream answers by editing the posted message at most this often (ms), where the channel can edit. */
  readonly streamEditMs?: number;
  /**
   * How a conversation takes messages that arrive during a turn, given the
   * mode chosen in chat (`/queue`); default: that, else the config's `queue:` section.
   */
  readonly queueBehaviour?: (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;
  /** The provider's model name, for `/model` and for prices from the config's `models:` list. */
  readonly model?: string;
  /** Run turns in this process (and post reminders when they come due). */
  readonly worker?: boolean;
  readonly concurrency?: number;
  readonly leaseMs?: number;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** Turns voice notes into text (the `transcription` capability must be present too). */
  readonly transcriber?: Transcriber;
  /** The SSRF guard for file URLs off a platform's host; default: public addresses only. */
  readonly fileGuard?: Dispatcher;
  /** Where the console writes the files answers carry; default: `switchyard-files` in the OS's temp folder. */
  readonly consoleFilesDir?: string;
  /** Outbound ports by platform; `console` is always the app's Redis outbox. */
  readonly outbounds?: Readonly<Record<string, Outbound>>;
  readonly logger?: LoggerPort;
  readonly observe?: TurnObserver & { queueWait?(ms: number): void };
  /** How tools under `ask` wait for a person; the config's `approvals:` section by default. */
  readonly approvals?: ApprovalOptions;
}

/** How approvals behave in this process, besides the config. */
export interface ApprovalOptions {
  /** The approval policy of a conversation (who may decide, how long a request waits), instead of the config's. */
  readonly policy?: (address: ConversationAddress) => ApprovalPolicy;
}

/** A running Switchyard: the queue to enqueue into, and the worker when this process runs turns. */
export interface Switchyard {
  readonly store: Store;
  readonly queue: ConversationQueue;
  readonly outbox: RedisOutbox;
  readonly redis: Redis;
  readonly worker?: TurnWorker;
  readonly reminders?: ReminderWorker;
  /** Stop and interrupt signals for running turns (`/stop`), from any process. */
  readonly signals: TurnSignals;
  /** Records decisions on approval requests (clicks, `/approve`) and wakes their turns, from any process. */
  readonly approvals: ApprovalDesk;
  /**
   * `/stop`: signals the conversation's running turn, or cancels the
   * approval request a parked turn waits on (see {@link TurnSignals.send}).
   * True when there was a turn to stop.
   */
  stopTurn(address: ConversationAddress): Promise<boolean>;
  /** Stops taking work, lets running turns finish, and closes connections. */
  close(): Promise<void>;
}

function personaOf(
  persona: SwitchyardOptions["persona"],
): (address: ConversationAddress) => string {
  if (typeof persona === "function") return persona;
  const text = persona ?? DEFAULT_PERSONA;
  return () => text;
}

/** The connections and state one process shares between its queue, its worker and its reminders. */
interface Plumbing {
  readonly prefix: string;
  readonly shards: number;
  readonly logger: LoggerPort;
  readonly factory: RedisFactory;
  readonly redis: Redis;
  readonly store: Store;
  readonly signals: TurnSignals;
  readonly outbounds: Readonly<Record<string, Outbound>>;
  readonly approvals: ApprovalDesk;
}

function factoryOf(options: SwitchyardOptions): RedisFactory {
  const factory =
    options.redis ?? (options.redisUrl ? RedisFactory.single(options.redisUrl) : undefined);
  if (factory === undefined) {
    throw new TypeError(
      "startSwitchyard needs a Redis: pass redis (a RedisFactory, e.g. from connectRedis) or redisUrl.",
    );
  }
  return factory;
}

/** The chosen `/queue` mode over the config's `queue:` section, when the options bring no behaviour of their own. */
function queueBehaviourOf(options: SwitchyardOptions): TurnEnvironment["queueBehaviour"] {
  return (
    options.queueBehaviour ??
    ((address, chosen) => {
      const configured = queueBehaviourFor((options.config?.() ?? EMPTY_CONFIG).queue, address);
      return chosen ? { ...configured, mode: chosen } : configured;
    })
  );
}

function turnEnvironment(options: SwitchyardOptions, plumbing: Plumbing): TurnEnvironment {
  const { redis, store, logger, outbounds, signals } = plumbing;
  return {
    store,
    inbox: new Inbox(redis, store.keys),
    registry: options.registry,
    capabilities: options.capabilities ?? (() => ({})),
    config: options.config ?? (() => EMPTY_CONFIG),
    runtime: options.runtime ?? {},
    warnings: new WarnOnce(logger),
    ...(options.skills ? { skills: options.skills } : {}),
    provider: options.provider,
    outbounds,
    persona: personaOf(options.persona),
    maxSteps: options.maxSteps ?? 8,
    toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    history: { maxTokens: options.historyMaxTokens ?? 60_000, keepLast: 4 },
    streamEditMs: options.streamEditMs ?? 1_000,
    queueBehaviour: queueBehaviourOf(options),
    ...(options.model ? { model: options.model } : {}),
    signals,
    approvals: plumbing.approvals,
    attachments: new FileReader({
      redis,
      keys: store.keys,
      sources: (platform) => outbounds[platform]?.files,
      limits: () => (options.config?.() ?? EMPTY_CONFIG).attachments,
      ...(options.transcriber ? { transcriber: options.transcriber } : {}),
      ...(options.fileGuard ? { guard: options.fileGuard } : {}),
      logger,
    }),
    toolFiles: new RedisToolFiles({
      redis,
      keys: store.keys,
      limits: () => (options.config?.() ?? EMPTY_CONFIG).attachments,
    }),
    logger,
    ...(options.observe ? { observe: options.observe } : {}),
  };
}

function turnWorkerOptions(
  options: SwitchyardOptions,
  plumbing: Plumbing,
  connection: Redis,
): TurnWorkerOptions {
  return {
    connection,
    prefix: plumbing.prefix,
    shards: plumbing.shards,
    ...(options.consumeShards ? { consume: options.consumeShards } : {}),
    ...(options.drainIntervalMs ? { drainIntervalMs: options.drainIntervalMs } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.lockDurationMs !== undefined ? { lockDurationMs: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs !== undefined
      ? { stalledIntervalMs: options.stalledIntervalMs }
      : {}),
    ...(options.observe?.queueWait ? { onQueueWait: options.observe.queueWait } : {}),
  };
}

/** The worker side of a process: turns, and the reminders the tools set, each on a connection of its own. */
interface Workers {
  readonly worker: TurnWorker;
  readonly workerConnection: Redis;
  readonly reminders: ReminderWorker;
  readonly remindersConnection: Redis;
}

async function startWorkers(options: SwitchyardOptions, plumbing: Plumbing): Promise<Workers> {
  const { factory, redis, prefix, outbounds, logger } = plumbing;
  await plumbing.signals.listen();
  const workerConnection = factory.create("worker");
  const worker = new TurnWorker(
    turnEnvironment(options, plumbing),
    turnWorkerOptions(options, plumbing, workerConnection),
  );
  worker.start();
  // Reminders set by the tools fire here, through the same outbounds as answers.
  const remindersConnection = factory.create("reminders");
  const reminders = new ReminderWorker({
    connection: remindersConnection,
    redis,
    prefix,
    outbounds,
    logger,
  });
  reminders.start();
  return { worker, workerConnection, reminders, remindersConnection };
}

export async function startSwitchyard(options: SwitchyardOptions): Promise<Switchyard> {
  const prefix = options.prefix ?? "sy";
  const logger = options.logger ?? silentLogger;
  const factory = factoryOf(options);
  const shards = options.shards ?? 1;
  // State reads and writes of many conversations go out together: one socket write per tick, not per command.
  const redis = factory.create("state");
  const store = createStore(redis, { prefix, logger });
  // The queue has a connection of its own: BullMQ defines some fifty scripts on
  // the connection it is given, and an auto-pipelined connection copies every
  // defined script into each batch it sends (a quarter of a turn's CPU when
  // they shared one).
  const queueConnection = factory.create("queue");
  const queue = new ConversationQueue(new Inbox(queueConnection, store.keys), {
    prefix,
    shards,
    ...(options.waitForReplicas !== undefined ? { waitForReplicas: options.waitForReplicas } : {}),
    ...(options.waitTimeoutMs !== undefined ? { waitTimeoutMs: options.waitTimeoutMs } : {}),
  });
  const outbox = new RedisOutbox(redis, prefix, conversationKey, options.consoleFilesDir);
  // Stop and interrupt signals: any process may send one; a worker process listens.
  const signalsConnection = options.worker !== false ? factory.create("signals") : undefined;
  const config = options.config ?? (() => EMPTY_CONFIG);
  const approvals = new ApprovalDesk({
    store,
    queue,
    config,
    ...(options.approvals?.policy ? { policy: options.approvals.policy } : {}),
  });
  const signals = new TurnSignals(redis, signalsConnection, store.keys, logger, (address) =>
    approvals.cancel(address),
  );
  // The console's answers always go through the outbox, which every process has.
  const outbounds: Readonly<Record<string, Outbound>> = { ...options.outbounds, console: outbox };
  const plumbing: Plumbing = {
    prefix,
    shards,
    logger,
    factory,
    redis,
    store,
    signals,
    outbounds,
    approvals,
  };
  const workers = options.worker !== false ? await startWorkers(options, plumbing) : undefined;
  const worker = workers?.worker;
  const reminders = workers?.reminders;
  return {
    store,
    queue,
    outbox,
    redis,
    ...(worker ? { worker } : {}),
    ...(reminders ? { reminders } : {}),
    signals,
    approvals,
    stopTurn: (address) => signals.send(address, "stop"),
    async close() {
      // Closing connections BullMQ is still opening leaves their commands rejected unhandled.
      await worker?.waitUntilReady().catch(() => {});
      await reminders?.worker.waitUntilReady().catch(() => {});
      await Promise.all([worker?.close(), reminders?.close()]);
      await queue.close();
      await signals.close();
      await Promise.allSettled([
        signalsConnection?.quit(),
        redis.quit(),
        queueConnection.quit(),
        workers?.workerConnection.quit(),
        workers?.remindersConnection.quit(),
      ]);
    },
  };
}
