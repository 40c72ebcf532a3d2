import type { Processor, Queue, Worker, WorkerOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { LoggerPort } from "../core/logger.ts";
import { RepeatedWarnings } from "../observability/repeated-warnings.ts";
import type { KeyScheme } from "../store/keys.ts";
import { bullmq } from "../store/redis/bullmq.ts";
import type { TurnJob } from "./queue.ts";
import { ShardLayouts, shardQueues, TURN_QUEUE } from "./shards.ts";
import { gatedWorker, type StrainGate } from "./strain-gate.ts";

/** The job handler a drain worker runs: the turn worker's own. */
export type TurnProcessor = Processor<TurnJob>;

export interface ShardDrainOptions {
  /** BullMQ's connection (the turn worker's; each drain worker duplicates it to block). */
  readonly connection: Redis;
  readonly keys: KeyScheme;
  /** The shard count this process runs with: its queues are not drained, they are consumed. */
  readonly shards: number;
  /** Also drain the queue from before sharding, `<prefix>:bull` (never on a cluster: its keys span slots). */
  readonly legacy: boolean;
  readonly processor: TurnProcessor;
  readonly workerOptions: Omit<WorkerOptions, "connection" | "prefix" | "autorun">;
  /** The turn worker's: a drain worker takes no new job while the process is strained either. */
  readonly gate: StrainGate;
  readonly logger: LoggerPort;
  readonly queueName?: string;
  /** How often the layouts and old queues are looked at. */
  readonly intervalMs?: number;
  /** A count nobody refreshed for this long, with its queues empty, is forgotten. */
  readonly staleMs?: number;
}

/** The job states that mean "not done yet". */
const PENDING = ["active", "wait", "delayed", "prioritized", "paused", "waiting-children"] as const;

/**
 * Drains the queues of shard counts other than this process's, so changing
 * `queue.shards` on a running deployment loses nothing: jobs queued under the
 * old count (by producers not yet restarted, or before the change) are run by
 * a drain worker on their old queue, with the same handler, until the queue
 * is empty. Which counts exist is recorded in Redis (`ShardLayouts`); the
 * queue from before sharding is drained the same way.
 */
export class ShardDrainer {
  readonly #layouts: ShardLayouts;
  readonly #queues = new Map<string, Queue<TurnJob>>();
  readonly #draining = new Map<string, Worker<TurnJob>>();
  readonly #warnings: RepeatedWarnings;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly options: ShardDrainOptions) {
    this.#layouts = new ShardLayouts(options.connection, options.keys);
    this.#warnings = new RepeatedWarnings(options.logger);
  }

  /** Looks now, then every `intervalMs`. */
  start(): void {
    void this.tick();
    this.#timer = setInterval(() => void this.tick(), this.options.intervalMs ?? 15_000);
    this.#timer.unref();
  }

  /** The queues being drained right now (their BullMQ prefixes). */
  get draining(): readonly string[] {
    return [...this.#draining.keys()];
  }

  /** One look: register this count, start draining busy old queues, stop draining empty ones. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    const { keys, shards } = this.options;
    try {
      const now = Date.now();
      await this.#layouts.register(shards, now);
      const old: { prefix: string; label: string; jobs: number }[] = [];
      for (const [count, seen] of await this.#layouts.list()) {
        if (count === shards) continue;
        let pending = 0;
        for (const queue of shardQueues(keys, count)) {
          const jobs = await this.#pending(queue.prefix);
          pending += jobs;
          old.push({ prefix: queue.prefix, label: `shard ${queue.shard} of ${count}`, jobs });
        }
        if (pending === 0 && now - seen > (this.options.staleMs ?? 10 * 60_000)) {
          await this.#layouts.forget(count);
        }
      }
      if (this.options.legacy) {
        const prefix = keys.legacyQueuePrefix();
        old.push({
          prefix,
          label: "the queue from before sharding",
          jobs: await this.#pending(prefix),
        });
      }
      for (const { prefix, label, jobs } of old) {
        if (this.#closed) return;
        const worker = this.#draining.get(prefix);
        if (jobs > 0 && worker === undefined) {
          this.options.logger.warn(`draining ${jobs} queued turns from ${label}`, { prefix });
          this.#drain(prefix);
        } else if (jobs === 0 && worker !== undefined) {
          this.#draining.delete(prefix);
          await worker.close();
        }
      }
    } catch (error) {
      this.#warnings.warn("could not look at the queues of other shard counts", {
        error: (error as Error).message,
      });
    }
  }

  async #pending(prefix: string): Promise<number> {
    let queue = this.#queues.get(prefix);
    if (queue === undefined) {
      queue = new (bullmq().Queue)<TurnJob>(this.options.queueName ?? TURN_QUEUE, {
        connection: this.options.connection,
        prefix,
      });
      this.#queues.set(prefix, queue);
    }
    const counts = await queue.getJobCounts(...PENDING);
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  #drain(prefix: string): void {
    const worker = gatedWorker<TurnJob>(
      this.options.queueName ?? TURN_QUEUE,
      this.options.processor,
      {
        ...this.options.workerOptions,
        connection: this.options.connection,
        prefix,
        autorun: false,
      },
      this.options.gate,
    );
    worker.on("error", (error) =>
      this.#warnings.warn("drain worker error", { prefix, error: (error as Error).message }),
    );
    this.#draining.set(prefix, worker);
    void worker.run();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#ticking;
    const workers = [...this.#draining.values()];
    this.#draining.clear();
    await Promise.all(workers.map((worker) => worker.close()));
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    this.#queues.clear();
  }
}
