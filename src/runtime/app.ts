import type { Redis } from "ioredis";
import type { Dispatcher } from "undici";
import { DEFAULT_PERSONA } from "../core/agent/prompt.ts";
import type { Provider } from "../core/agent/provider.ts";
import type { QueueBehaviour, QueueMode } from "../core/agent/queue-mode.ts";
import type { AgentDefinition } from "../core/agents/index.ts";
import type { ApprovalPolicy } from "../core/approvals/approval.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import type { ScopeLayer } from "../core/availability/scopes.ts";
import { queueBehaviourFor, type SwitchyardConfig } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import { type LoggerPort, silentLogger, WarnOnce } from "../core/logger.ts";
import type { ToolRegistry } from "../core/tools/registry.ts";
import { IngressGate } from "../ingress/access/gate.ts";
import { FeedbackDesk } from "../ingress/feedback-desk.ts";
import { EMPTY_CONFIG } from "../platforms/config.ts";
import { consoleOutbox } from "../platforms/terminal/console-channel.ts";
import type { Vote } from "../ports/feedback.ts";
import type { Outbound } from "../ports/outbound.ts";
import type { Outbox } from "../ports/outbox.ts";
import { ApprovalDesk } from "../queue/approval-desk.ts";
import type { LoadSample } from "../queue/back-pressure.ts";
import { ConversationQueue } from "../queue/queue.ts";
import {
  goneReason,
  pauseSchedule,
  type SchedulePauseEnvironment,
  schedulesInto,
} from "../queue/schedule-pause.ts";
import { type ScheduleGate, ScheduleWorker } from "../queue/schedule-worker.ts";
import { Schedules, scheduleQueue } from "../queue/schedules.ts";
import { TurnWorker, type TurnWorkerOptions } from "../queue/turn-worker.ts";
import { Inbox } from "../store/inbox.ts";
import { createStore, type Store } from "../store/index.ts";
import { RedisFactory } from "../store/redis/redis-factory.ts";
import { ScheduleStore } from "../store/schedule-store.ts";
import { FileReader, RedisToolFiles, type Transcriber } from "../tools/attachments/index.ts";
import { ReminderWorker } from "../tools/reminders/index.ts";
import type { ContractSources, SkillSources } from "../turn/contract.ts";
import type { TargetGone, TurnEnvironment, TurnObserver } from "../turn/turn-environment.ts";
import { TurnSignals } from "../turn/turn-signals.ts";

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
  readonly persona?: string | ((address: ConversationAddress, agent?: AgentDefinition) => string);
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
  /** Conversations one worker process runs at once (default 1024, sized for turns that wait on the model). */
  readonly concurrency?: number;
  /** The worker takes no new turns while its event-loop delay p99 is over this (ms; default 200, 0: never). */
  readonly maxEventLoopDelayMs?: number;
  /** The worker takes no new turns while its V8 heap in use is over this (MB; default 80% of its limit, 0: never). */
  readonly maxHeapMb?: number;
  /** How the worker looks at its event-loop delay and heap for the two above; a test hands in its own. */
  readonly loadSample?: () => LoadSample;
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
  readonly observe?: TurnObserver & {
    queueWait?(ms: number): void;
    /** A person's vote on an answer changed (a first vote or a change of mind). */
    feedback?(vote: Vote, previous: Vote | undefined): void;
  };
  /** How tools under `ask` wait for a person; the config's `approvals:` section by default. */
  readonly approvals?: ApprovalOptions;
  /** False: final answers carry no 👍 / 👎 buttons (`/good` and `/bad` still rate them); default true. */
  readonly feedback?: boolean;
}

/** How approvals behave in this process, besides the config. */
export interface ApprovalOptions {
  /** The approval policy of a conversation (who may decide, how long a request waits), instead of the config's. */
  readonly policy?: (address: ConversationAddress) => ApprovalPolicy;
}

/**
 * A running Switchyard: the queue to enqueue into, and the worker when this
 * process runs turns. `createBot` starts one from its options; this is the
 * one place a turn's environment is built from the options.
 */
export interface Switchyard {
  readonly store: Store;
  readonly queue: ConversationQueue;
  /** Where the console's answers go, in every process (the console channel reads it). */
  readonly outbox: Outbox;
  readonly redis: Redis;
  readonly worker?: TurnWorker;
  readonly reminders?: ReminderWorker;
  /** Takes schedule ticks and queues their runs (in a process that runs turns). */
  readonly schedules?: ScheduleWorker;
  /** Makes and changes schedules, from any process: `/schedule` and `schedule_task` use it. */
  readonly scheduleDesk: Schedules;
  /** Stop and interrupt signals for running turns (`/stop`), from any process. */
  readonly signals: TurnSignals;
  /** Records decisions on approval requests (clicks, `/approve`) and wakes their turns, from any process. */
  readonly approvals: ApprovalDesk;
  /** Records votes on answers (👍 / 👎, `/good`, `/bad`) and "what was wrong?", from any process. */
  readonly feedback: FeedbackDesk;
  /** What a conversation's contract is read from: the turns read it, and so do `/tools`, `/skills` and the console. */
  readonly sources: ContractSources;
  /** How a conversation takes messages that arrive during a turn: the turns follow it, `/queue` shows it. */
  readonly queueBehaviour: (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;
  /**
   * `/stop`: signals the conversation's running turn, or cancels the
   * approval request a parked turn waits on (see {@link TurnSignals.send}).
   * True when there was a turn to stop.
   */
  stopTurn(address: ConversationAddress): Promise<boolean>;
  /**
   * Stops taking work now (new turns, reminders, scheduled ticks wait in
   * Redis for another worker); the turns in progress go on. Resolves once
   * nothing new is taken; {@link close} waits for the rest.
   */
  stopTaking(): Promise<void>;
  /** Stops taking work, lets running turns finish, and closes connections. */
  close(): Promise<void>;
}

function personaOf(
  persona: SwitchyardOptions["persona"],
): (address: ConversationAddress, agent?: AgentDefinition) => string {
  const base = typeof persona === "function" ? persona : () => persona ?? DEFAULT_PERSONA;
  // An agent's inline persona is its own; a persona file is read by createBot's PersonaBook.
  return (address, agent) =>
    agent?.persona !== undefined && "text" in agent.persona
      ? agent.persona.text
      : base(address, agent);
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
function queueBehaviourOf(options: SwitchyardOptions): Switchyard["queueBehaviour"] {
  return (
    options.queueBehaviour ??
    ((address, chosen) => {
      const configured = queueBehaviourFor((options.config?.() ?? EMPTY_CONFIG).queue, address);
      return chosen ? { ...configured, mode: chosen } : configured;
    })
  );
}

/** What the turn worker takes from the options besides the turn's environment: shards and timings. */
function turnWorkerOptions(options: SwitchyardOptions, connection: Redis): TurnWorkerOptions {
  return {
    connection,
    prefix: options.prefix ?? "sy",
    shards: options.shards ?? 1,
    ...(options.consumeShards ? { consume: options.consumeShards } : {}),
    ...(options.drainIntervalMs ? { drainIntervalMs: options.drainIntervalMs } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    backPressure: {
      ...(options.maxEventLoopDelayMs !== undefined
        ? { maxEventLoopDelayMs: options.maxEventLoopDelayMs }
        : {}),
      ...(options.maxHeapMb !== undefined ? { maxHeapMb: options.maxHeapMb } : {}),
      ...(options.loadSample ? { sample: options.loadSample } : {}),
    },
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.lockDurationMs !== undefined ? { lockDurationMs: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs !== undefined
      ? { stalledIntervalMs: options.stalledIntervalMs }
      : {}),
    ...(options.observe?.queueWait ? { onQueueWait: options.observe.queueWait } : {}),
  };
}

/**
 * Starts the pipeline: the store, the queue, the console's outbox, approvals
 * and stop signals in every process; the turn worker and the reminders too
 * unless `worker` is false.
 */
export async function startSwitchyard(options: SwitchyardOptions): Promise<Switchyard> {
  const prefix = options.prefix ?? "sy";
  const logger = options.logger ?? silentLogger;
  const factory = factoryOf(options);
  const config = options.config ?? (() => EMPTY_CONFIG);
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
    shards: options.shards ?? 1,
    ...(options.waitForReplicas !== undefined ? { waitForReplicas: options.waitForReplicas } : {}),
    ...(options.waitTimeoutMs !== undefined ? { waitTimeoutMs: options.waitTimeoutMs } : {}),
  });
  const outbox = consoleOutbox({ redis, prefix, filesDir: options.consoleFilesDir });
  // Stop and interrupt signals: any process may send one; a worker process listens.
  const runsTurns = options.worker !== false;
  const signalsConnection = runsTurns ? factory.create("signals") : undefined;
  const approvals = new ApprovalDesk({
    store,
    queue,
    config,
    ...(options.approvals?.policy ? { policy: options.approvals.policy } : {}),
  });
  const feedbackObserver = options.observe?.feedback;
  const feedback = new FeedbackDesk({
    store: store.feedback,
    ...(feedbackObserver ? { onVote: (vote, previous) => feedbackObserver(vote, previous) } : {}),
  });
  const signals = new TurnSignals(redis, signalsConnection, store.keys, logger, (address) =>
    approvals.cancel(address),
  );
  // The console's answers always go through the outbox, which every process has.
  const outbounds: Readonly<Record<string, Outbound>> = { ...options.outbounds, console: outbox };
  const sources: ContractSources = {
    store,
    ...(options.skills ? { skills: options.skills } : {}),
    registry: options.registry,
    capabilities: options.capabilities ?? (() => ({})),
    config,
    runtime: options.runtime ?? {},
    warnings: new WarnOnce(logger),
    ...(options.model ? { model: options.model } : {}),
  };
  const queueBehaviour = queueBehaviourOf(options);
  // On the queue's connection: BullMQ's scripts are defined there already.
  const scheduleDesk = new Schedules(
    scheduleQueue(queueConnection, prefix),
    new ScheduleStore(redis, store.keys),
  );

  /** The worker side: turns, and the reminders the tools set, each on a connection of its own. */
  async function startWorkers() {
    await signals.listen();
    const schedulesConnection = factory.create("schedules");
    const schedules = new Schedules(
      scheduleQueue(schedulesConnection, prefix),
      new ScheduleStore(redis, store.keys),
    );
    const attachmentLimits = () => config().attachments;
    const environment: TurnEnvironment = {
      ...sources,
      inbox: new Inbox(redis, store.keys),
      provider: options.provider,
      outbounds,
      persona: personaOf(options.persona),
      maxSteps: options.maxSteps ?? 8,
      toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      history: { maxTokens: options.historyMaxTokens ?? 60_000, keepLast: 4 },
      streamEditMs: options.streamEditMs ?? 1_000,
      ...(options.feedback === false ? { feedback: false } : {}),
      queueBehaviour,
      signals,
      approvals,
      attachments: new FileReader({
        redis,
        keys: store.keys,
        sources: (platform) => outbounds[platform]?.files,
        limits: attachmentLimits,
        ...(options.transcriber ? { transcriber: options.transcriber } : {}),
        ...(options.fileGuard ? { guard: options.fileGuard } : {}),
        logger,
      }),
      toolFiles: new RedisToolFiles({ redis, keys: store.keys, limits: attachmentLimits }),
      logger,
      ...(options.observe ? { observe: options.observe } : {}),
      // A schedule whose answer found its target gone pauses, with every other one speaking there.
      onTargetGone: (gone) => pauseGoneSchedules({ schedules, outbounds, logger }, gone),
      // A run its tick queued before its schedule paused (or went) does not run when its turn comes.
      scheduledRuns: {
        stopped: async (id) => {
          // A record that no longer decodes stops nothing here: the run goes on as queued.
          const state = await schedules.store.get(id).catch(() => null);
          return state === undefined || (state !== null && state.paused !== undefined);
        },
        withdraw: (id) => schedules.store.withdraw(id),
      },
    };
    const workerConnection = factory.create("worker");
    const worker = new TurnWorker(environment, turnWorkerOptions(options, workerConnection));
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
    const scheduled = await startSchedules(schedules, schedulesConnection);
    return { worker, workerConnection, reminders, remindersConnection, ...scheduled };
  }

  /**
   * Schedules: the config's are made so (every worker does it at start, and
   * they agree), and ticks become messages from each schedule's owner,
   * through the access gate and into the queue like any other message.
   */
  async function startSchedules(schedules: Schedules, schedulesConnection: Redis) {
    await schedules.sync(config().schedules);
    const scheduleWorker = new ScheduleWorker({
      connection: schedulesConnection,
      prefix,
      schedules,
      enqueue: queue,
      gate: scheduleGate(new IngressGate({ store, config })),
      outbounds,
      logger,
    });
    scheduleWorker.start();
    return { scheduleWorker, schedules, schedulesConnection };
  }

  const workers = runsTurns ? await startWorkers() : undefined;
  const worker = workers?.worker;
  const reminders = workers?.reminders;
  const scheduleWorker = workers?.scheduleWorker;
  let closingWorkers: Promise<unknown> | undefined;
  const closeWorkers = async () => {
    // Closing connections BullMQ is still opening leaves their commands rejected unhandled.
    await worker?.waitUntilReady().catch(() => {});
    await reminders?.worker.waitUntilReady().catch(() => {});
    await scheduleWorker?.worker.waitUntilReady().catch(() => {});
    await Promise.all([worker?.close(), reminders?.close(), scheduleWorker?.close()]);
  };
  return {
    store,
    queue,
    outbox,
    redis,
    ...(worker ? { worker } : {}),
    ...(reminders ? { reminders } : {}),
    ...(scheduleWorker ? { schedules: scheduleWorker } : {}),
    signals,
    approvals,
    feedback,
    sources,
    queueBehaviour,
    scheduleDesk,
    stopTurn: (address) => signals.send(address, "stop"),
    async stopTaking() {
      closingWorkers ??= closeWorkers();
      // BullMQ's close drops a waiting fetch at once, then waits for the jobs it runs.
      await new Promise((resolve) => setImmediate(resolve));
    },
    async close() {
      closingWorkers ??= closeWorkers();
      await closingWorkers;
      await workers?.schedules.queue.close();
      await scheduleDesk.queue.close();
      await queue.close();
      await signals.close();
      await Promise.allSettled([
        signalsConnection?.quit(),
        redis.quit(),
        queueConnection.quit(),
        workers?.workerConnection.quit(),
        workers?.remindersConnection.quit(),
        workers?.schedulesConnection.quit(),
      ]);
    },
  };
}

/**
 * Pauses the schedules a refused answer says are speaking into a gone
 * conversation: the ones it ran for, and the others with the same target.
 */
async function pauseGoneSchedules(env: SchedulePauseEnvironment, gone: TargetGone): Promise<void> {
  const runs = gone.messages.flatMap((message) =>
    message.scheduled ? [message.scheduled.id] : [],
  );
  const all = (await env.schedules.list())
    .filter((state) => state.ended === undefined)
    .map((state) => state.schedule);
  const into = schedulesInto(
    all,
    { platform: gone.address.platform, channel: gone.error.channel },
    runs,
  );
  for (const id of runs) {
    await env.schedules.store.note(id, `not delivered: ${gone.error.reason}`, Date.now());
  }
  for (const schedule of into) await pauseSchedule(env, schedule, goneReason(gone.error));
}

/**
 * The gate a scheduled run passes, as a message from its owner: refused
 * entry pauses the schedule (it will not pass by itself); a limit or a
 * spent budget skips only this run.
 */
function scheduleGate(gate: IngressGate): ScheduleGate {
  return async (message) => {
    const admitted = await gate.admit(message);
    if (admitted.kind === "refused") {
      return {
        kind: "refused",
        pause: true,
        reason: `its owner ${message.user} is not let into this conversation any more (${admitted.reason}).`,
      };
    }
    const metered = await gate.meter(message);
    if (metered.kind === "refused") {
      return { kind: "refused", pause: false, reason: metered.reason };
    }
    return { kind: "pass" };
  };
}
