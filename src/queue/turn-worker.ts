import { randomUUID } from "node:crypto";
import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { conversationKey } from "../core/conversation.ts";
import { isTransientFailure } from "../core/transient-failure.ts";
import { RepeatedWarnings } from "../observability/repeated-warnings.ts";
import { KeyScheme } from "../store/keys.ts";
import { bullmq } from "../store/redis/bullmq.ts";
import { drainConversation } from "../turn/drain.ts";
import { takeSnapshot } from "../turn/snapshot.ts";
import { LostLeaseError, readTurnChoices, type TurnEnvironment } from "../turn/turn-environment.ts";
import {
  BackPressure,
  type BackPressureLimits,
  DEFAULT_BACK_PRESSURE,
  DEFAULT_CONCURRENCY,
  type LoadSample,
} from "./back-pressure.ts";
import type { TurnJob } from "./queue.ts";
import { ShardDrainer } from "./shard-drain.ts";
import { shardQueues, TURN_QUEUE } from "./shards.ts";
import { gatedWorker, StrainGate } from "./strain-gate.ts";

export interface TurnWorkerOptions {
  readonly connection: Redis;
  readonly prefix?: string;
  readonly queueName?: string;
  /** The conversation queue's shard count; 1 by default. Producers must use the same. */
  readonly shards?: number;
  /** The shards this process consumes; all by default. */
  readonly consume?: readonly number[];
  /** Whether to drain the queue from before sharding (`<prefix>:bull`); by default unless on a cluster, where it cannot exist. */
  readonly drainLegacy?: boolean;
  /** How often queues of other shard counts are looked at and drained. */
  readonly drainIntervalMs?: number;
  /**
   * Conversations this process works on at once, over all its shards;
   * default {@link DEFAULT_CONCURRENCY}. A turn mostly waits on the model,
   * so this is sized for I/O; {@link backPressure} guards the process.
   */
  readonly concurrency?: number;
  /**
   * When the process takes no new turns (the running ones go on) until it
   * recovers: event-loop delay and heap; `false`: never. Default
   * {@link DEFAULT_BACK_PRESSURE}.
   */
  readonly backPressure?:
    | (Partial<BackPressureLimits> & {
        /** How the process is looked at; a test hands in its own. */
        readonly sample?: () => LoadSample;
      })
    | false;
  /** How long a conversation's lease lasts without a heartbeat. */
  readonly leaseMs?: number;
  /** BullMQ's job lock; a crashed worker's job is taken over after about this long. */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  readonly onQueueWait?: (ms: number) => void;
}

/**
 * What a worker logs (a warning) when back-pressure holds its fetches and
 * when it lets go: on a loaded machine these are expected, and say so.
 */
export const STRAIN_NOTES = {
  strained: "this worker takes no new turns until it recovers",
  recovered: "this worker takes new turns again",
} as const;

/**
 * The consumer side. A job says "this conversation has work"; the worker
 * takes the conversation's lease and drains its inbox turn by turn. A job
 * that finds the lease held by someone else is done: the holder sees the new
 * message before it lets go. A job that finds the lease held by *itself* is a
 * job whose worker died; it waits for that lease to expire, then resumes the
 * turn from its checkpoint.
 */
export class TurnWorker {
  /** One BullMQ worker per consumed shard. */
  readonly workers: readonly Worker<TurnJob>[];
  readonly drainer: ShardDrainer;
  // The pid is in every lease token, so an operator (or a test) can tell which process holds a conversation.
  readonly #instance = `${process.pid}.${randomUUID().slice(0, 4)}`;
  readonly #leaseMs: number;
  /** How soon a job whose turn was cut short by Redis (or a lost lease) looks again. */
  readonly #retryMs: number;
  readonly #warnings: RepeatedWarnings;
  #inProgress = 0;
  #pressure: BackPressure | undefined;
  /** Shut while the process is strained: its BullMQ workers (shards and drains) take no new jobs. */
  readonly #gate = new StrainGate();

  constructor(
    private readonly env: TurnEnvironment,
    private readonly options: TurnWorkerOptions,
  ) {
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#retryMs = Math.min(1_000, Math.max(100, Math.floor(this.#leaseMs / 3)));
    const keys = new KeyScheme(options.prefix ?? "sy");
    const shards = options.shards ?? 1;
    const queues = shardQueues(keys, shards, options.consume);
    // A process's concurrency is shared by its shards; a conversation's shard is a
    // uniform hash, so each shard sees about the same share of the work.
    const perShard = Math.max(
      1,
      Math.ceil((options.concurrency ?? DEFAULT_CONCURRENCY) / queues.length),
    );
    const workerOptions = {
      concurrency: perShard,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      // A stalled job is the only thing that resumes a crashed worker's turn; never give up on it.
      maxStalledCount: 1_000,
    };
    const processor = (job: Job<TurnJob>, token: string | undefined) => this.#process(job, token);
    this.workers = queues.map(({ prefix }) =>
      gatedWorker<TurnJob>(
        options.queueName ?? TURN_QUEUE,
        processor,
        { ...workerOptions, connection: options.connection, prefix, autorun: false },
        this.#gate,
      ),
    );
    // While Redis refuses writes BullMQ emits this thousands of times a second: log it with backoff.
    this.#warnings = new RepeatedWarnings(env.logger);
    for (const worker of this.workers) {
      worker.on("error", (error) =>
        this.#warnings.warn("worker error", { error: (error as Error).message }),
      );
    }
    this.drainer = new ShardDrainer({
      connection: options.connection,
      keys,
      shards,
      legacy: options.drainLegacy ?? !options.connection.isCluster,
      processor,
      workerOptions,
      gate: this.#gate,
      logger: env.logger,
      ...(options.queueName ? { queueName: options.queueName } : {}),
      ...(options.drainIntervalMs ? { intervalMs: options.drainIntervalMs } : {}),
    });
  }

  start(): void {
    for (const worker of this.workers) void worker.run();
    this.drainer.start();
    const limits = this.options.backPressure;
    if (limits !== false) {
      const { sample, ...given } = limits ?? {};
      this.#pressure = new BackPressure(
        { ...DEFAULT_BACK_PRESSURE, ...given },
        (strain) => this.#strained(strain),
        undefined,
        sample,
      );
    }
  }

  /** Why this process takes no new turns now (see {@link TurnWorkerOptions.backPressure}), if it does not. */
  get strain(): string | undefined {
    return this.#pressure?.strain;
  }

  /**
   * Strained: each BullMQ worker takes a job only when it holds none, so the
   * turns in progress go on and new ones wait in Redis. Recovered: each
   * takes jobs again at once, though its running turns go on (see
   * {@link gatedWorker}: lowering BullMQ's concurrency would wait for one to end).
   */
  #strained(strain: string | undefined): void {
    this.#gate.update(strain !== undefined);
    // With backoff: a worker at its limit may cross it back and forth every second.
    if (strain) {
      this.#warnings.warn(STRAIN_NOTES.strained, {
        strain,
        inProgress: this.#inProgress,
      });
    } else {
      this.#warnings.warn(STRAIN_NOTES.recovered, { inProgress: this.#inProgress });
    }
  }

  /** Resolves once every shard's worker is connected. */
  async waitUntilReady(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
  }

  /**
   * The shard workers as one, for callers that waited on the single worker
   * of before (`app.worker.worker.waitUntilReady()`).
   */
  get worker(): { waitUntilReady(): Promise<void> } {
    return this;
  }

  /** Conversations this process is running a turn of now (`switchyard_turns_in_progress`). */
  get inProgress(): number {
    return this.#inProgress;
  }

  /** Stops taking jobs and waits for the turns in progress to finish (SIGTERM). */
  async close(): Promise<void> {
    this.#pressure?.close();
    await Promise.all([...this.workers.map((worker) => worker.close()), this.drainer.close()]);
  }

  async #process(job: Job<TurnJob>, token: string | undefined): Promise<string> {
    const address = job.data.address;
    if (job.attemptsStarted <= 1 && job.processedOn) {
      this.options.onQueueWait?.(job.processedOn - job.data.enqueuedAt);
    }
    const lease = `${job.id}|${this.#instance}|${randomUUID().slice(0, 8)}`;
    const taken = await takeSnapshot(this.env.store, this.env.inbox, address, {
      token: lease,
      ttlMs: this.#leaseMs,
    });
    if (!taken.taken) {
      if (taken.holder.startsWith(`${job.id}|`)) {
        // This job's earlier run died holding the lease: come back when it expires.
        await job.moveToDelayed(Date.now() + Math.max(taken.ttlMs, 0) + 50, token);
        throw new (bullmq().DelayedError)();
      }
      // A message for a conversation that interrupts: the running turn ends at once, and the
      // holder's next turn takes this message with the rest.
      if ((await readTurnChoices(this.env, address)).behaviour.mode === "interrupt") {
        await this.env.signals?.send(address, "interrupt");
      }
      return "busy";
    }
    const controller = new AbortController();
    const heartbeat = setInterval(
      () => {
        this.env.inbox.renew(address, lease, this.#leaseMs).then(
          (ok) => {
            if (!ok) controller.abort(new LostLeaseError("lease lost"));
          },
          () => {},
        );
      },
      Math.max(100, Math.floor(this.#leaseMs / 3)),
    );
    this.#inProgress += 1;
    try {
      await drainConversation(this.env, address, lease, controller.signal, taken.snapshot);
      return "drained";
    } catch (error) {
      if (error instanceof LostLeaseError) {
        // Usually another worker has the conversation; but a lease can also run out while
        // Redis was away (killed, restarted, paused), with nobody holding it after. Look
        // again shortly: busy if someone has it, else this job takes it and resumes.
        this.#warnings.warn("lost a conversation's lease mid-turn; looking at it again shortly", {
          conversation: conversationKey(address),
        });
        await job.moveToDelayed(Date.now() + this.#retryMs, token);
        throw new (bullmq().DelayedError)();
      }
      if (isTransientFailure(error)) {
        // Redis refusing or away: not the turn's fault, so it costs none of the job's attempts.
        this.#warnings.warn(
          "a turn could not reach Redis; it resumes from its checkpoint shortly",
          {
            conversation: conversationKey(address),
            error: (error as Error)?.message,
          },
        );
        await job.moveToDelayed(Date.now() + this.#retryMs, token);
        throw new (bullmq().DelayedError)();
      }
      // The job is retried (and the turn resumed from its checkpoint); count the failure.
      this.env.logger.warn("a turn failed; its job will be retried", {
        conversation: conversationKey(address),
        error: (error as Error)?.message,
      });
      this.env.observe?.turn?.({
        address,
        result: undefined,
        outcome: "error",
        ms: Date.now() - (job.processedOn ?? Date.now()),
        contractChanged: false,
      });
      throw error;
    } finally {
      this.#inProgress -= 1;
      clearInterval(heartbeat);
    }
  }
}
